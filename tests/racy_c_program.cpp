#include "racy_c_program.hpp"

#include <random>
#include <vector>

#include "concat.hpp"

namespace weft::testing {
namespace {

constexpr int kMaxLocals = 3;

// Writes one program's statements; every shared name carries the program's prefix, so that the
// programs of one file share nothing (each has its own instructions and globals).
class ProgramWriter {
 public:
  ProgramWriter(std::uint64_t seed, bool loops, bool inputs, bool locked)
      : rng_(seed * 0x9e3779b97f4a7c15ull + 1),
        prefix_(concat("p", std::to_string(seed), "_")),
        loops_(loops),
        inputs_(inputs),
        locked_(locked) {}

  std::string write() {
    globals_ = uniform(2, 3);
    const int threads = chance(35) ? 3 : 2;
    std::string out = "// program " + prefix_.substr(1, prefix_.size() - 2) + "\n";
    // External linkage: no warnings for the ones a program leaves unused.
    out += "int";
    for (int g = 0; g < globals_; ++g) out += (g ? ", " : " ") + global(g);
    out += ";\nint " + atomic() + ";\n";
    out += "pthread_mutex_t " + prefix_ + "m = PTHREAD_MUTEX_INITIALIZER;\n";
    for (int t = 0; t < threads; ++t) {
      Body body;
      const int statements = uniform(2, 4);
      for (int s = 0; s < statements; ++s) statement(body, "  ");
      out += "static void* " + prefix_ + "t" + std::to_string(t) + "(void* arg) {\n";
      out += "  (void)arg;\n" + declarations(body) + body.code + "  return 0;\n}\n";
    }
    // Main creates the threads, may run statements of its own meanwhile, joins them, and may
    // assert on what they left.
    Body body;
    if (chance(40)) {
      const int statements = uniform(1, 2);
      for (int s = 0; s < statements; ++s) statement(body, "  ");
    }
    out += "static void " + prefix_ + "main(void) {\n";
    out += "  pthread_t threads[" + std::to_string(threads) + "];\n" + declarations(body);
    for (int t = 0; t < threads; ++t)
      out += "  pthread_create(&threads[" + std::to_string(t) + "], 0, " + prefix_ + "t" +
             std::to_string(t) + ", 0);\n";
    out += body.code;
    for (int t = 0; t < threads; ++t)
      out += "  pthread_join(threads[" + std::to_string(t) + "], 0);\n";
    if (chance(50)) {
      const std::string x = global(uniform(0, globals_ - 1));
      const std::string y = global(uniform(0, globals_ - 1));
      out += chance(50)
                 ? "  assert(" + x + " != " + std::to_string(uniform(1, 3)) + ");\n"
                 : "  assert(" + x + " + " + y + " != " + std::to_string(uniform(2, 4)) + ");\n";
    }
    return out + "}\n";
  }

 private:
  struct Body {
    std::string code;
    int locals = 0;  // r0 .. r<locals-1> have been assigned
  };

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  std::string global(int g) const { return prefix_ + "x" + std::to_string(g); }
  std::string atomic() const { return prefix_ + "a"; }
  std::string value() { return std::to_string(uniform(0, 2)); }
  static std::string local(int r) { return concat("r", std::to_string(r)); }
  // A variable for a plain access: usually a plain global, sometimes the atomic one (a race
  // between a plain and an atomic access).
  std::string plain_target() {
    return !locked_ && chance(8) ? atomic() : global(uniform(0, globals_ - 1));
  }
  std::string some_local(const Body& b) { return local(uniform(0, b.locals - 1)); }
  // The local a read assigns: a new one while there are fewer than kMaxLocals, else one again.
  std::string next_local(Body& b) {
    if (b.locals < kMaxLocals && (b.locals == 0 || chance(70))) return local(b.locals++);
    return some_local(b);
  }

  // With inputs, a local may start as an input of 2 bits (drawn only then, so that the programs
  // without are the same as before).
  std::string declarations(const Body& b) {
    if (b.locals == 0) return "";
    std::string s = "  int";
    for (int r = 0; r < b.locals; ++r)
      s += (r ? ", " : " ") + local(r) +
           (inputs_ && chance(40) ? " = __VERIFIER_nondet_int() & 3" : " = 0");
    s += ";\n";
    for (int r = 0; r < b.locals; ++r) s += "  (void)" + local(r) + ";\n";
    return s;
  }

  // A plain read into a local, or a plain write of a constant or of a local plus a constant.
  std::string access(Body& b) {
    if (chance(50)) {
      const std::string target = plain_target();
      return next_local(b) + " = " + target + ";";
    }
    const std::string target = plain_target();
    if (b.locals > 0 && chance(50)) return target + " = " + some_local(b) + " + 1;";
    return target + " = " + value() + ";";
  }

  // A condition on values read that holds in some interleavings only (usually).
  std::string condition(Body& b) {
    const int roll = uniform(0, 4);
    if (roll == 0 && b.locals > 1) return local(0) + " == " + local(1);
    if (roll == 1 && b.locals > 1) return local(0) + " + " + local(b.locals - 1) + " != 2";
    if (roll == 2 || b.locals == 0) return plain_target() + " != " + value();
    if (roll == 3) return plain_target() + " == " + some_local(b);
    return some_local(b) + " != " + value();
  }

  void statement(Body& b, const std::string& indent) {
    // Locked programs: the statement under the mutex unless it is a critical section or an
    // atomic already (drawn as in unlocked programs: the code inside is the same).
    if (locked_ && !in_lock_) {
      const std::string lock = indent + "pthread_mutex_lock(&" + prefix_ + "m);\n";
      const bool racy = chance(5);
      const std::size_t start = b.code.size();
      in_lock_ = true;
      statement(b, indent);
      in_lock_ = false;
      const std::string drawn = b.code.substr(start);
      const bool plain = drawn.find("pthread_mutex") == std::string::npos &&
                         drawn.find("__atomic") == std::string::npos;
      if (plain && !racy) {
        b.code.insert(start, lock);
        b.code += indent + "pthread_mutex_unlock(&" + prefix_ + "m);\n";
      }
      return;
    }
    // (Drawn only with loops, so that the programs without are the same as before.)
    if (loops_ && indent.size() == 2 && chance(20)) {
      loop(b, indent);
      return;
    }
    const int roll = uniform(0, 99);
    if (roll < 40) {
      b.code += indent + access(b) + "\n";
    } else if (roll < 55) {
      b.code += indent + "pthread_mutex_lock(&" + prefix_ + "m);\n";
      const int accesses = uniform(1, 2);
      for (int i = 0; i < accesses; ++i) b.code += indent + "  " + access(b) + "\n";
      b.code += indent + "pthread_mutex_unlock(&" + prefix_ + "m);\n";
    } else if (roll < 67) {
      const int kind = uniform(0, 2);
      const std::string a = concat("&", atomic());
      if (kind == 0)
        b.code += indent + "__atomic_store_n(" + a + ", " + value() + ", __ATOMIC_SEQ_CST);\n";
      else if (kind == 1)
        b.code += indent + next_local(b) + " = __atomic_load_n(" + a + ", __ATOMIC_SEQ_CST);\n";
      else
        b.code +=
            indent + next_local(b) + " = __atomic_fetch_add(" + a + ", 1, __ATOMIC_SEQ_CST);\n";
    } else if (roll < 80 && b.locals > 0) {
      // The guarded statement is a write or an assertion: a value read decides whether it runs.
      b.code += indent + "if (" + some_local(b) + " == " + value() + ") ";
      if (chance(50)) {
        b.code += "assert(" + condition(b) + ");\n";
      } else {
        const std::string target = global(uniform(0, globals_ - 1));
        b.code += target + " = " + value() + ";\n";
      }
    } else {
      b.code += indent + "assert(" + condition(b) + ");\n";
    }
  }

  // A loop of 2 or 3 rounds over a statement or two, or one that waits (a few rounds at most)
  // for a shared variable to change: states that repeat across interleavings, for the stateful
  // strategy's differential test.
  void loop(Body& b, const std::string& indent) {
    const std::string k = concat("k", std::to_string(loops_made_++));
    const std::string rounds = std::to_string(uniform(2, 3));
    if (chance(50)) {
      b.code += indent + "for (int " + k + " = 0; " + k + " < " + rounds + "; ++" + k + ") {\n";
      const int statements = uniform(1, 2);
      for (int s = 0; s < statements; ++s) statement(b, indent + "  ");
      b.code += indent + "}\n";
      return;
    }
    const std::string target = plain_target();
    b.code += indent + "for (int " + k + " = 0; " + k + " < " + rounds + " && " + target +
              " != " + value() + "; ++" + k + ") {\n";
    b.code += indent + "  " + access(b) + "\n";
    b.code += indent + "}\n";
  }

  std::mt19937_64 rng_;
  std::string prefix_;
  bool loops_;
  bool inputs_;
  bool locked_;
  bool in_lock_ = false;  // drawing a statement a locked program puts under the mutex
  int loops_made_ = 0;
  int globals_ = 2;
};

const char* const kIncludes =
    "#include <assert.h>\n#include <pthread.h>\n#include <stdlib.h>\n\n"
    "extern int __VERIFIER_nondet_int(void);\n\n";

}  // namespace

std::string racy_program_definitions(std::uint64_t seed, bool loops, bool inputs, bool locked) {
  return ProgramWriter(seed, loops, inputs, locked).write();
}

std::string racy_program_file(std::uint64_t first, int count, bool loops, bool inputs,
                              bool locked) {
  std::string out = std::string("// Generated by tests/racy_c_program.cpp: programs ") +
                    std::to_string(first) + " .. " + std::to_string(first + count - 1) + ".\n" +
                    kIncludes;
  std::string table = "static void (*const programs[])(void) = {\n";
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    out += racy_program_definitions(seed, loops, inputs, locked) + "\n";
    table += "  p" + std::to_string(seed) + "_main,\n";
  }
  out += table + "};\n\n";
  out += "int main(int argc, char** argv) {\n";
  out += "  const int count = (int)(sizeof programs / sizeof programs[0]);\n";
  out += "  const int i = argc == 2 ? atoi(argv[1]) : -1;\n";
  out += "  if (i < 0 || i >= count) return 2;\n";
  out += "  programs[i]();\n  return 0;\n}\n";
  return out;
}

std::string racy_program_standalone(std::uint64_t seed, bool loops, bool inputs, bool locked) {
  return std::string(kIncludes) + racy_program_definitions(seed, loops, inputs, locked) +
         "\nint main(void) {\n  p" + std::to_string(seed) + "_main();\n  return 0;\n}\n";
}

}  // namespace weft::testing
