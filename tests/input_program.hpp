// Seeded random programs with inputs for the inputs differential test: 2–3 threads and main,
// 1–3 inputs of 2–4 bits (read by main or by a thread), branches on values computed from them,
// and values flowing between threads through shared variables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::testing {

struct InputProgram {
  struct Input {
    int reader = -1;  ///< -1: main, before it starts the threads; else that thread, first
    unsigned bits = 2;
  };
  enum class Kind : std::uint8_t {
    kWrite,   ///< x[var] = local op constant
    kRead,    ///< local = local op x[var]
    kBranch,  ///< if (local cmp constant) x[var] = constant2; else local = local + 1
    kAssert,  ///< assert(local != constant)
  };
  struct Statement {
    Kind kind = Kind::kWrite;
    int var = 0;
    int op = 0;  ///< 0 +, 1 ^, 2 &, 3 - (kWrite, kRead); 0 ==, 1 <, 2 > (kBranch)
    std::uint8_t constant = 0;
    std::uint8_t constant2 = 0;
  };
  struct Thread {
    int initial_input = -1;  ///< the local starts as this input (main's or its own), or 0
    std::vector<Statement> statements;
  };
  std::vector<Input> inputs;
  std::vector<Thread> threads;
  int variables = 2;

  /// Every vector of input values (each input from 0 to 2^bits - 1).
  std::vector<std::vector<std::uint8_t>> every_input_vector() const;
  std::string describe() const;
};

InputProgram generate_input_program(std::uint64_t seed);

/// What one execution showed: the branch outcomes of each thread ("01|1|") and the final values
/// of the shared variables (their low four bits, which main branches on). Set by main at its end.
struct InputRun {
  std::string path;
  std::string final_state;
};

/// Runs `p` once inside weft::explore: with `fixed` values for its inputs (concrete), or with
/// weft::input for each (and weft::assume that it fits in its bits).
void run_input_program(const InputProgram& p, const std::optional<std::vector<std::uint8_t>>& fixed,
                       InputRun& out);

}  // namespace weft::testing
