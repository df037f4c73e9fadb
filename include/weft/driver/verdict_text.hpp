// Why a verdict is incomplete, in words: one text for both front ends (the command line and
// the in-process API), which differ only in what they call their options and in how they name
// the program's places (verdict_text.cpp).
#pragma once

#include <string>

#include "weft/explore/exploration.hpp"
#include "weft/explore/verdict.hpp"

namespace weft::driver {

/// A front end's words for the parts of a verdict's text that are its own.
struct VerdictWords {
  std::string strategy;           ///< the strategy's name
  bool unfolding = false;         ///< the strategy builds an unfolding
  std::string unsupported;        ///< ExplorationResult::unsupported, in the program's terms
  std::string first_bound;        ///< ExplorationResult::first_bound_message, the same
  std::string fixed_inputs;       ///< what the inputs were fixed to, and by which option
  std::string input_gaps;         ///< describe_input_gaps of the run, in the program's terms
  std::string unrestored;         ///< the process state the program changed, listed
  std::string restore_hint;       ///< how to start each execution afresh ("" if none)
  std::string kernel_talk;        ///< what talked through the kernel, listed
  std::string unseen_libraries;   ///< the libraries weft did not compile, listed
  std::string signal_handlers;    ///< the signals handled where weft tries only some places
  std::string semaphore_resets;   ///< where sem_init set a used semaphore again
  std::string stop_on_first_bug;  ///< which option stops at the first bug, and how not to
  std::string chosen_bug;         ///< the bug the caller chose to stop at
  std::string limits;             ///< the options that limit the run (and their values)
  std::string memory_limit;       ///< the option that bounds weft's memory, with its value
  std::string optimal_choice;     ///< how to choose optimal DPOR ("--strategy optimal")
};

/// Why the exploration `result` is incomplete (`why`, as decided by explorer::decide), in one
/// line: "" for Incompleteness::kNone.
std::string incompleteness_text(explorer::Incompleteness why,
                                const explorer::ExplorationResult& result,
                                const VerdictWords& words);

}  // namespace weft::driver
