#include "heap_c_program.hpp"

#include <random>
#include <vector>

#include "concat.hpp"

namespace weft::testing {
namespace {

constexpr int kMaxLocals = 3;
constexpr int kMaxBlocks = 3;
constexpr const char* kSeqCst = "__ATOMIC_SEQ_CST";

// What a thread's code is made of so far: its text, the locals it has assigned, and a bound on
// the visible operations it performs (every shared access, free, atomic and mutex operation).
struct Body {
  std::string code;
  int locals = 0;  // r0 .. r<locals-1> have been assigned
  int operations = 0;
  // Blocks this thread has freed, for sure, and not set to null: it leaves them alone after
  // that (every access would be a use after free in every interleaving).
  bool freed[kMaxBlocks] = {};
};

// Writes one program; every shared name carries the program's prefix, so that the programs of
// one file share nothing (each has its own instructions and globals).
class ProgramWriter {
 public:
  ProgramWriter(std::uint64_t seed, int attempt)
      : rng_(seed * 0x9e3779b97f4a7c15ull + 1 + static_cast<std::uint64_t>(attempt) * 7919),
        prefix_(concat("p", std::to_string(seed), "_")) {}

  // The program, and in `bound` an upper bound on the interleavings of its visible operations.
  std::string write(double& bound) {
    blocks_ = chance(60) ? 1 : chance(75) ? 2 : 3;
    for (int j = 0; j < blocks_; ++j) {
      length_[j] = uniform(2, 4);
      nulled_[j] = chance(50);
    }
    published_ = chance(40);
    publish_atomically_ = chance(60);
    const int threads = chance(30) ? 3 : 2;

    std::string out = "// program " + prefix_.substr(1, prefix_.size() - 2) + "\n";
    // External linkage: no warnings for the ones a program leaves unused.
    out += "int";
    for (int j = 0; j < blocks_; ++j) out += std::string(j ? ", " : " ") + "*" + block(j);
    out += ";\nint* " + pub() + ";\nint " + atomic() + ";\n";
    out += "pthread_mutex_t " + prefix_ + "m = PTHREAD_MUTEX_INITIALIZER;\n";

    std::vector<int> operations;
    for (int t = 0; t < threads; ++t) {
      Body body;
      const int statements = uniform(2, 3);
      const int publish_at = published_ && t == 0 ? uniform(0, statements - 1) : -1;
      for (int s = 0; s < statements; ++s) {
        if (s == publish_at)
          publication(body, "  ");
        else
          statement(body, "  ", /*may_consume=*/published_ && t != 0);
      }
      operations.push_back(body.operations);
      out += "static void* " + prefix_ + "t" + std::to_string(t) + "(void* arg) {\n";
      out += "  (void)arg;\n" + declarations(body) + body.code + "  return 0;\n}\n";
    }

    // Main allocates the blocks, creates the threads, may run statements of its own meanwhile,
    // joins them, and may free what is left.
    Body body;
    if (chance(35)) statement(body, "  ", published_);
    body.operations += threads;  // the joins
    operations.push_back(body.operations);
    out += "static void " + prefix_ + "main(void) {\n";
    out += "  pthread_t threads[" + std::to_string(threads) + "];\n" + declarations(body);
    for (int j = 0; j < blocks_; ++j) {
      out += "  " + block(j) + " = calloc(" + std::to_string(length_[j]) + ", sizeof(int));\n";
      if (chance(40)) {
        const int i = uniform(0, length_[j] - 1);
        out += "  " + block(j) + "[" + std::to_string(i) + "] = " + std::to_string(uniform(1, 2)) +
               ";\n";
      }
    }
    for (int t = 0; t < threads; ++t)
      out += "  pthread_create(&threads[" + std::to_string(t) + "], 0, " + prefix_ + "t" +
             std::to_string(t) + ", 0);\n";
    out += body.code;
    for (int t = 0; t < threads; ++t)
      out += "  pthread_join(threads[" + std::to_string(t) + "], 0);\n";
    // What is left: a block set to null when freed is freed if it is not null; another one only
    // if no thread surely freed it (else it would be a double free in every interleaving).
    for (int j = 0; j < blocks_; ++j)
      if ((nulled_[j] || !surely_freed_[j]) && chance(60))
        out += "  if (" + block(j) + ") free(" + block(j) + ");\n";
    if (published_ && chance(50)) out += "  if (" + pub() + ") free(" + pub() + ");\n";
    bound = interleavings(operations);
    return out + "}\n";
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  std::string block(int j) const { return prefix_ + "b" + std::to_string(j); }
  std::string pub() const { return prefix_ + "pub"; }
  std::string atomic() const { return prefix_ + "a"; }
  std::string mutex() const { return "&" + prefix_ + "m"; }  // as the pthread calls take it
  std::string value() { return std::to_string(uniform(0, 2)); }
  static std::string local(int r) { return concat("r", std::to_string(r)); }
  std::string some_local(const Body& b) { return local(uniform(0, b.locals - 1)); }
  // The local a read assigns: a new one while there are fewer than kMaxLocals, else one again.
  std::string next_local(Body& b) {
    if (b.locals < kMaxLocals && (b.locals == 0 || chance(70))) return local(b.locals++);
    return some_local(b);
  }

  // (n0 + n1 + ...)! / (n0! n1! ...), the interleavings of threads with these operation counts.
  static double interleavings(const std::vector<int>& operations) {
    double result = 1;
    int placed = 0;
    for (int n : operations)
      for (int k = 1; k <= n; ++k) result = result * ++placed / k;
    return result;
  }

  static std::string declarations(const Body& b) {
    if (b.locals == 0) return "";
    std::string s = "  int";
    for (int r = 0; r < b.locals; ++r) s += concat(r ? ", " : " ", local(r), " = 0");
    s += ";\n";
    for (int r = 0; r < b.locals; ++r) s += concat("  (void)", local(r), ";\n");
    return s;
  }

  // An index into an array of `length` ints: in bounds, or (when a value was read) one past the
  // end if that value is not what the program expects.
  std::string index(Body& b, int length) {
    if (b.locals > 0 && chance(30)) {
      const std::string r = some_local(b);
      return std::to_string(length - 1) + " + (" + r + " != " + value() + ")";
    }
    return std::to_string(uniform(0, length - 1));
  }

  // A read of an element into a local, or a write of one, through pointer `q` (a C expression
  // already checked not to be null).
  std::string element_access(Body& b, const std::string& q, int length) {
    const std::string at = concat(q, "[", index(b, length), "]");
    b.operations += 1;
    if (chance(50)) return next_local(b) + " = " + at + ";";
    if (b.locals > 0 && chance(40)) return at + " = " + some_local(b) + " + 1;";
    return at + " = " + value() + ";";
  }

  // An access to an element of block j: through the global itself, or, if someone sets the
  // global to null, through a copy checked first (a check another thread may invalidate).
  std::string block_access(Body& b, int j) {
    b.operations += 1;  // the read of the global
    if (!nulled_[j]) return element_access(b, block(j), length_[j]);
    return "{ int* q = " + block(j) + "; if (q) " + element_access(b, "q", length_[j]) + " }";
  }

  // A free of block j: plainly (setting the global to null after or before, if the program
  // does), by taking it with an atomic exchange, or checked and nulled under the mutex.
  std::string block_free(Body& b, int j, bool locked) {
    b.operations += 2;  // the read of the global and the free
    if (!nulled_[j]) return "free(" + block(j) + ");";
    b.operations += 1;  // the write of null
    if (locked) {
      b.operations += 1;  // the check reads the global again
      return "if (" + block(j) + ") { free(" + block(j) + "); " + block(j) + " = 0; }";
    }
    switch (uniform(0, 2)) {
      case 0:
        return "{ int* q = " + block(j) + "; free(q); " + block(j) + " = 0; }";
      case 1:
        return "{ int* q = " + block(j) + "; " + block(j) + " = 0; free(q); }";
      default:
        return "free(__atomic_exchange_n(&" + block(j) + ", 0, " + kSeqCst + "));";
    }
  }

  // A realloc of block j: to fewer elements (kept where it is), to one more, or to many more
  // (moved, freeing the old block).
  std::string block_realloc(Body& b, int j) {
    b.operations += 3;  // the read and the write of the global, and the free of a moved block
    const int roll = uniform(0, 2);
    const int length = roll == 0 ? length_[j] - 1 : roll == 1 ? length_[j] + 1 : 16;
    return block(j) + " = realloc(" + block(j) + ", " + std::to_string(length) + " * sizeof(int));";
  }

  // The published block, as a consumer sees it: `q` loaded from the published pointer.
  std::string load_published(Body& b) {
    b.operations += publish_atomically_ ? 1 : 3;
    if (publish_atomically_) return "int* q = __atomic_load_n(&" + pub() + ", " + kSeqCst + ");";
    return "pthread_mutex_lock(" + mutex() + "); int* q = " + pub() + "; pthread_mutex_unlock(" +
           mutex() + ");";
  }

  // A consumer's use of the published block: read or write an element, or free it (taking it,
  // so that no other consumer frees it again, or not).
  std::string consume(Body& b) {
    const int roll = uniform(0, 99);
    if (roll < 60) {
      const std::string load = load_published(b);
      return "{ " + load + " if (q) " + element_access(b, "q", kPublishedLength) + " }";
    }
    b.operations += 1;  // the free
    if (roll < 80) return "{ " + load_published(b) + " if (q) free(q); }";
    if (publish_atomically_) {
      b.operations += 1;
      return "free(__atomic_exchange_n(&" + pub() + ", 0, " + kSeqCst + "));";
    }
    b.operations += 4;
    return "{ pthread_mutex_lock(" + mutex() + "); int* q = " + pub() + "; " + pub() +
           " = 0; pthread_mutex_unlock(" + mutex() + "); free(q); }";
  }

  // Thread 0 allocates a block, fills in an element and publishes it; sometimes it then frees
  // it while consumers may still use it.
  void publication(Body& b, const std::string& indent) {
    b.operations += 1;
    b.code += indent + "{\n" + indent + "  int* q = malloc(" + std::to_string(kPublishedLength) +
              " * sizeof(int));\n";
    const int i = uniform(0, kPublishedLength - 1);
    b.code += indent + "  q[" + std::to_string(i) + "] = " + std::to_string(uniform(1, 2)) + ";\n";
    if (publish_atomically_) {
      b.operations += 1;
      b.code += indent + "  __atomic_store_n(&" + pub() + ", q, " + kSeqCst + ");\n";
    } else {
      b.operations += 3;
      b.code += indent + "  pthread_mutex_lock(" + mutex() + ");\n" + indent + "  " + pub() +
                " = q;\n" + indent + "  pthread_mutex_unlock(" + mutex() + ");\n";
    }
    if (chance(30)) {
      b.operations += 1;
      b.code += indent + "  free(q);\n";
    }
    b.code += indent + "}\n";
  }

  std::string atomic_operation(Body& b) {
    b.operations += 1;
    const std::string a = "&" + atomic();
    switch (uniform(0, 2)) {
      case 0:
        return "__atomic_store_n(" + a + ", " + value() + ", " + kSeqCst + ");";
      case 1:
        return next_local(b) + " = __atomic_load_n(" + a + ", " + kSeqCst + ");";
      default:
        return next_local(b) + " = __atomic_fetch_add(" + a + ", 1, " + kSeqCst + ");";
    }
  }

  // A condition that holds in some interleavings only (usually): on a value read, or on the
  // atomic.
  std::string condition(Body& b) {
    if (b.locals > 0 && chance(60)) {
      const std::string r = some_local(b);
      return r + " == " + value();
    }
    b.operations += 1;
    return "__atomic_load_n(&" + atomic() + ", " + kSeqCst + ") == " + value();
  }

  // A block the thread may still use, or -1 if it freed them all.
  int some_block(const Body& b) {
    std::vector<int> left;
    for (int j = 0; j < blocks_; ++j)
      if (!b.freed[j]) left.push_back(j);
    return left.empty() ? -1 : left[uniform(0, static_cast<int>(left.size()) - 1)];
  }

  void statement(Body& b, const std::string& indent, bool may_consume) {
    const int j = some_block(b);
    const int roll = uniform(0, 99);
    if (j < 0) {
      b.code += indent + atomic_operation(b) + "\n";
    } else if (may_consume && roll < 15) {
      b.code += indent + consume(b) + "\n";
    } else if (roll < 37) {
      b.code += indent + block_access(b, j) + "\n";
    } else if (roll < 59) {
      // Frees are often conditional: then some interleavings keep the block.
      const std::string guard = chance(50) ? "if (" + condition(b) + ") " : "";
      b.code += indent + guard + block_free(b, j, false) + "\n";
      if (guard.empty() && !nulled_[j]) b.freed[j] = surely_freed_[j] = true;
    } else if (roll < 67) {
      b.code += indent + block_realloc(b, j) + "\n";
    } else if (roll < 77) {
      b.code += indent + atomic_operation(b) + "\n";
    } else if (roll < 90) {
      b.operations += 2;
      b.code += indent + "pthread_mutex_lock(" + mutex() + ");\n";
      const int statements = uniform(1, 2);
      for (int i = 0; i < statements; ++i) {
        const int k = some_block(b);
        if (k < 0) break;
        b.code += indent + "  " +
                  (nulled_[k] && chance(35) ? block_free(b, k, true) : block_access(b, k)) + "\n";
      }
      b.code += indent + "pthread_mutex_unlock(" + mutex() + ");\n";
    } else {
      // The condition comes first: the access may assign the local it reads.
      const std::string guard = condition(b);
      b.code += indent + "if (" + guard + ") " + block_access(b, j) + "\n";
    }
  }

  static constexpr int kPublishedLength = 2;

  std::mt19937_64 rng_;
  std::string prefix_;
  int blocks_ = 1;
  int length_[kMaxBlocks] = {};
  bool nulled_[kMaxBlocks] = {};
  bool surely_freed_[kMaxBlocks] = {};  // by some thread, and not set to null
  bool published_ = false;
  bool publish_atomically_ = true;
};

const char* const kIncludes = "#include <pthread.h>\n#include <stdlib.h>\n\n";

}  // namespace

std::string heap_program_definitions(std::uint64_t seed) {
  // Programs over the bound are written again from the next attempt's random numbers.
  for (int attempt = 0;; ++attempt) {
    double bound = 0;
    std::string program = ProgramWriter(seed, attempt).write(bound);
    if (bound <= kMaxInterleavingBound) return program;
  }
}

std::string heap_program_file(std::uint64_t first, int count) {
  std::string out = std::string("// Generated by tests/heap_c_program.cpp: programs ") +
                    std::to_string(first) + " .. " + std::to_string(first + count - 1) + ".\n" +
                    kIncludes;
  std::string table = "static void (*const programs[])(void) = {\n";
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    out += heap_program_definitions(seed) + "\n";
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

std::string heap_program_standalone(std::uint64_t seed) {
  return std::string(kIncludes) + heap_program_definitions(seed) + "\nint main(void) {\n  p" +
         std::to_string(seed) + "_main();\n  return 0;\n}\n";
}

}  // namespace weft::testing
