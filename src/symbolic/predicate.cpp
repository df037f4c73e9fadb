#include "weft/symbolic/predicate.hpp"

#include <cctype>
#include <cstring>
#include <limits>

namespace weft::symbolic {
namespace {

// A recursive-descent parser over C's precedence levels: || < && < comparisons < + - < * / % <
// unary. Values are 64-bit numbers or 1-bit truths; each level converts what it is given to what
// it needs, as C does (a truth is 0 or 1, a number is true when nonzero).
class Parser {
 public:
  Parser(std::string_view text,
         const std::function<std::optional<VariableType>(const std::string&)>& type_of,
         Predicate& out)
      : text_(text), type_of_(type_of), out_(out) {}

  ExprId parse() {
    const ExprId e = truth(logical_or());
    skip_space();
    if (at_ < text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw PredicateError("--check-global: " + what + " at column " + std::to_string(at_ + 1) +
                         " of '" + std::string(text_) +
                         "'; write a C expression over global variables and at(THREAD, LINE)");
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(at_, token.size()) != token) return false;
    // "<" is not the start of "<=", nor "&" of "&&", nor "=" of "==".
    const std::size_t end = at_ + token.size();
    if (token.size() == 1 && end < text_.size() &&
        std::string_view("<>=!&|").find(token[0]) != std::string_view::npos &&
        (text_[end] == '=' || text_[end] == token[0]))
      return false;
    at_ = end;
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail("expected '" + std::string(token) + "'");
  }

  ExprId truth(ExprId e) { return out_.pool.is_nonzero(e); }
  ExprId number(ExprId e) { return out_.pool.resize(e, 64, false); }

  ExprId logical_or() {
    ExprId e = logical_and();
    while (accept("||")) e = out_.pool.binary(ExprKind::kOr, truth(e), truth(logical_and()));
    return e;
  }
  ExprId logical_and() {
    ExprId e = comparison();
    while (accept("&&")) e = out_.pool.binary(ExprKind::kAnd, truth(e), truth(comparison()));
    return e;
  }
  ExprId comparison() {
    const ExprId a = number(sum());
    const auto rest = [&] { return number(sum()); };
    ExpressionPool& p = out_.pool;
    if (accept("==")) return p.binary(ExprKind::kEq, a, rest());
    if (accept("!=")) return p.binary(ExprKind::kNe, a, rest());
    if (accept("<=")) return p.binary(ExprKind::kSle, a, rest());
    if (accept(">=")) return p.binary(ExprKind::kSle, rest(), a);
    if (accept("<")) return p.binary(ExprKind::kSlt, a, rest());
    if (accept(">")) return p.binary(ExprKind::kSlt, rest(), a);
    return a;
  }
  ExprId sum() {
    ExprId e = term();
    for (;;) {
      if (accept("+"))
        e = out_.pool.binary(ExprKind::kAdd, number(e), number(term()));
      else if (accept("-"))
        e = out_.pool.binary(ExprKind::kSub, number(e), number(term()));
      else
        return e;
    }
  }
  ExprId term() {
    ExprId e = unary();
    for (;;) {
      ExprKind kind;
      if (accept("*"))
        kind = ExprKind::kMul;
      else if (accept("/"))
        kind = ExprKind::kSDiv;
      else if (accept("%"))
        kind = ExprKind::kSRem;
      else
        return e;
      e = out_.pool.binary(kind, number(e), number(unary()));
    }
  }
  ExprId unary() {
    if (accept("-")) return out_.pool.unary(ExprKind::kNeg, number(unary()));
    if (accept("!")) return out_.pool.unary(ExprKind::kNot, truth(unary()));
    return primary();
  }
  ExprId primary() {
    skip_space();
    if (accept("(")) {
      const ExprId e = logical_or();
      expect(")");
      return e;
    }
    if (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])))
      return out_.pool.constant(64, literal());
    const std::string name = identifier();
    if (name.empty())
      fail(at_ < text_.size() ? "unexpected '" + std::string(1, text_[at_]) + "'"
                              : "unexpected end");
    if (name == "at" && accept("(")) return location();
    const auto type = type_of_(name);
    if (!type) fail("'" + name + "' is not a global variable of the program");
    return out_.pool.resize(atom({PredicateAtom::Kind::kVariable, name, *type, 0}), 64,
                            type->is_signed);
  }
  // at(THREAD, LINE): THREAD as reports name it ("0.1"), LINE a source line number.
  ExprId location() {
    skip_space();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.'))
      ++at_;
    const std::string thread(text_.substr(start, at_ - start));
    if (thread.empty()) fail("expected a thread (as reports name it: 0, 0.1, ...)");
    expect(",");
    skip_space();
    if (at_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[at_])))
      fail("expected a line number");
    const std::uint64_t line = literal();
    if (line == 0 || line > std::numeric_limits<std::uint32_t>::max()) fail("no such line");
    expect(")");
    return atom({PredicateAtom::Kind::kLocation, thread, VariableType{1, false},
                 static_cast<std::uint32_t>(line)});
  }
  std::uint64_t literal() {
    const std::size_t start = at_;
    std::uint64_t value = 0;
    int base = 10;
    if (text_.substr(at_, 2) == "0x" || text_.substr(at_, 2) == "0X") {
      base = 16;
      at_ += 2;
    }
    bool any = false;
    while (at_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[at_]))) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[at_])));
      const unsigned digit = c <= '9' ? unsigned(c - '0') : unsigned(c - 'a' + 10);
      if (digit >= unsigned(base)) break;
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / base) {
        at_ = start;
        fail("number too large");
      }
      value = value * base + digit;
      any = true;
      ++at_;
    }
    if (!any) fail("expected digits");
    if (at_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[at_])))) {
      // Suffixes (10u, 10L) change nothing here: arithmetic is 64-bit and signed.
      while (at_ < text_.size() && std::strchr("uUlL", text_[at_])) ++at_;
    }
    return value;
  }
  std::string identifier() {
    skip_space();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    if (at_ > start && std::isdigit(static_cast<unsigned char>(text_[start]))) at_ = start;
    return std::string(text_.substr(start, at_ - start));
  }
  // Input i of the pool is atom i; an atom written twice is one input.
  ExprId atom(const PredicateAtom& a) {
    for (std::size_t i = 0; i < out_.atoms.size(); ++i) {
      const PredicateAtom& b = out_.atoms[i];
      if (b.kind == a.kind && b.name == a.name && b.line == a.line)
        return out_.pool.input(b.type.width, static_cast<std::uint32_t>(i));
    }
    out_.atoms.push_back(a);
    return out_.pool.input(a.type.width, static_cast<std::uint32_t>(out_.atoms.size() - 1));
  }

  std::string_view text_;
  const std::function<std::optional<VariableType>(const std::string&)>& type_of_;
  Predicate& out_;
  std::size_t at_ = 0;
};

}  // namespace

Predicate parse_predicate(
    std::string_view text,
    const std::function<std::optional<VariableType>(const std::string&)>& type_of) {
  Predicate p;
  p.text = std::string(text);
  p.root = Parser(text, type_of, p).parse();
  return p;
}

}  // namespace weft::symbolic
