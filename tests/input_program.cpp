#include "input_program.hpp"

#include <random>

#include "concat.hpp"
#include "weft/weft.hpp"

namespace weft::testing {

using Byte = value<std::uint8_t>;

std::vector<std::vector<std::uint8_t>> InputProgram::every_input_vector() const {
  std::vector<std::vector<std::uint8_t>> out{{}};
  for (const Input& in : inputs) {
    std::vector<std::vector<std::uint8_t>> next;
    for (const auto& prefix : out)
      for (unsigned v = 0; v < (1u << in.bits); ++v) {
        next.push_back(prefix);
        next.back().push_back(static_cast<std::uint8_t>(v));
      }
    out = std::move(next);
  }
  return out;
}

std::string InputProgram::describe() const {
  static const char* kArith[] = {"+", "^", "&", "-"};
  static const char* kCompare[] = {"==", "<", ">"};
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += concat(
        "in", std::to_string(i), ": ", std::to_string(inputs[i].bits), " bits, read by ",
        inputs[i].reader < 0 ? std::string("main") : concat("t", std::to_string(inputs[i].reader)),
        "\n");
  for (std::size_t t = 0; t < threads.size(); ++t) {
    s += concat("t", std::to_string(t), ": l = ",
                threads[t].initial_input < 0
                    ? std::string("0")
                    : concat("in", std::to_string(threads[t].initial_input)),
                ";");
    for (const Statement& st : threads[t].statements) {
      const std::string x = concat("x", std::to_string(st.var)), c = std::to_string(st.constant);
      switch (st.kind) {
        case Kind::kWrite:
          s += " " + x + " = l " + kArith[st.op] + " " + c + ";";
          break;
        case Kind::kRead:
          s += " l = l " + std::string(kArith[st.op]) + " " + x + ";";
          break;
        case Kind::kBranch:
          s += " if (l " + std::string(kCompare[st.op]) + " " + c + ") " + x + " = " +
               std::to_string(st.constant2) + "; else l++;";
          break;
        case Kind::kAssert:
          s += " assert(l != " + c + ");";
          break;
      }
    }
    s += "\n";
  }
  return s;
}

InputProgram generate_input_program(std::uint64_t seed) {
  std::mt19937_64 random(seed * 0x9E3779B97F4A7C15ULL + 17);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<std::uint64_t>(n)); };
  InputProgram p;
  const int threads = 2 + pick(2);
  p.threads.resize(static_cast<std::size_t>(threads));
  // At most 6 bits of inputs in all, so that the oracle's product stays small.
  unsigned budget = 6;
  const int inputs = 1 + pick(3);
  for (int i = 0; i < inputs && budget >= 2; ++i) {
    const unsigned bits = 2 + static_cast<unsigned>(pick(3));
    if (bits > budget) break;
    budget -= bits;
    InputProgram::Input in{pick(2) == 0 ? -1 : pick(threads), bits};
    // A thread reads one input of its own at most (its first operation).
    for (const auto& other : p.inputs)
      if (in.reader >= 0 && other.reader == in.reader) in.reader = -1;
    p.inputs.push_back(in);
  }
  for (int t = 0; t < threads; ++t) {
    auto& th = p.threads[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i].reader == t) th.initial_input = static_cast<int>(i);
    if (th.initial_input < 0 && pick(2) == 0) {
      for (std::size_t i = 0; i < p.inputs.size(); ++i)
        if (p.inputs[i].reader < 0 && pick(2) == 0) th.initial_input = static_cast<int>(i);
    }
    const int statements = 2 + pick(3);
    for (int s = 0; s < statements; ++s) {
      InputProgram::Statement st;
      const int k = pick(10);
      st.kind = k < 3   ? InputProgram::Kind::kWrite
                : k < 5 ? InputProgram::Kind::kRead
                : k < 9 ? InputProgram::Kind::kBranch
                        : InputProgram::Kind::kAssert;
      st.var = pick(p.variables);
      st.op = st.kind == InputProgram::Kind::kBranch ? pick(3) : pick(4);
      st.constant = static_cast<std::uint8_t>(pick(5));
      st.constant2 = static_cast<std::uint8_t>(pick(4));
      th.statements.push_back(st);
    }
  }
  return p;
}

namespace {

Byte arith(int op, const Byte& a, const Byte& b) {
  switch (op) {
    case 0:
      return a + b;
    case 1:
      return a ^ b;
    case 2:
      return a & b;
    default:
      return a - b;
  }
}

value<bool> compare(int op, const Byte& a, std::uint8_t c) {
  switch (op) {
    case 0:
      return a == c;
    case 1:
      return a < c;
    default:
      return a > c;
  }
}

Byte read_input(const InputProgram& p, std::size_t i,
                const std::optional<std::vector<std::uint8_t>>& fixed) {
  if (fixed) return Byte((*fixed)[i]);
  Byte v = input<std::uint8_t>(("in" + std::to_string(i)).c_str());
  assume(v <= static_cast<std::uint8_t>((1u << p.inputs[i].bits) - 1));
  return v;
}

}  // namespace

void run_input_program(const InputProgram& p, const std::optional<std::vector<std::uint8_t>>& fixed,
                       InputRun& out) {
  out = {};
  std::vector<Byte> main_inputs(p.inputs.size(), Byte(0));
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].reader < 0) main_inputs[i] = read_input(p, i, fixed);
  shared<Byte> x0{Byte(0)}, x1{Byte(0)};
  shared<Byte>* vars[] = {&x0, &x1};
  std::vector<std::string> paths(p.threads.size());
  std::vector<thread> threads;
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    threads.emplace_back([&, t] {
      const InputProgram::Thread& th = p.threads[t];
      Byte l(0);
      if (th.initial_input >= 0) {
        const auto i = static_cast<std::size_t>(th.initial_input);
        l = p.inputs[i].reader == static_cast<int>(t) ? read_input(p, i, fixed) : main_inputs[i];
      }
      for (const InputProgram::Statement& st : th.statements) {
        shared<Byte>& x = *vars[st.var];
        switch (st.kind) {
          case InputProgram::Kind::kWrite:
            x = arith(st.op, l, Byte(st.constant));
            break;
          case InputProgram::Kind::kRead:
            l = arith(st.op, l, x.load());
            break;
          case InputProgram::Kind::kBranch:
            if (compare(st.op, l, st.constant)) {
              paths[t] += '1';
              x = Byte(st.constant2);
            } else {
              paths[t] += '0';
              l = l + 1;
            }
            break;
          case InputProgram::Kind::kAssert:
            if (l == st.constant)
              WEFT_ASSERT(!"l differs from the constant");  // one message for every thread
            break;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& path : paths) out.path += path + "|";
  // Main branches on the low four bits of each final value, so that they are part of the path:
  // symbolic exploration covers paths, and this makes each final state (so observed) one.
  for (shared<Byte>* x : vars) {
    const Byte v = x->load();
    unsigned bits = 0;
    for (unsigned bit = 0; bit < 4; ++bit)
      if (((v >> static_cast<std::uint8_t>(bit)) & 1) == 1) bits |= 1u << bit;
    out.final_state += std::to_string(bits) + ",";
  }
}

}  // namespace weft::testing
