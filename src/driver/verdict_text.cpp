#include "weft/driver/verdict_text.hpp"

#include "weft/driver/report.hpp"

namespace weft::driver {

std::string incompleteness_text(explorer::Incompleteness why, const explorer::ExplorationResult& r,
                                const VerdictWords& w) {
  using explorer::Incompleteness;
  const auto coverage = [&r] { return r.coverage.empty() ? "" : "; " + r.coverage; };
  switch (why) {
    case Incompleteness::kNone:
      return "";
    case Incompleteness::kUnsupported:
      return w.unsupported;
    case Incompleteness::kWithinBounds:
      return "every interleaving was explored within the bounds, but " +
             group_digits(r.stats.bound_reached) + " of " + group_digits(r.stats.executions) +
             " executions stopped at a bound, so behaviours beyond it are not covered; the "
             "first: " +
             w.first_bound;
    case Incompleteness::kCutShort:
      return group_digits(r.stats.bound_reached + r.stats.timeouts) + " of " +
             group_digits(r.stats.executions) +
             " executions were cut short; the first: " + w.first_bound;
    case Incompleteness::kFixedInputs:
      return std::string(w.unfolding ? "every local state of every thread was covered"
                                     : "every interleaving was explored") +
             ", but the program reads inputs, which were fixed to " + w.fixed_inputs +
             " rather than explored";
    case Incompleteness::kInputGaps:
      return "every interleaving of every input path weft could follow was explored, but " +
             w.input_gaps;
    case Incompleteness::kUnrestoredState:
      return "every interleaving was explored, but the program changed process state that weft "
             "does not restore between executions (" +
             w.unrestored + "), so later executions may have started from it" +
             (w.restore_hint.empty() ? "" : "; " + w.restore_hint);
    case Incompleteness::kKernelCommunication:
      return "every interleaving of the threads' visible operations was explored, but the "
             "threads talked through the kernel (" +
             w.kernel_talk +
             "), whose messages weft does not see, so the orders in which they could arrive "
             "were not explored";
    case Incompleteness::kUnseenLibrary:
      return "every interleaving of the synchronisation weft sees was explored, but the "
             "program uses " +
             w.unseen_libraries +
             ", which weft did not compile and which can synchronise threads with its own "
             "atomic instructions: what it orders, weft does not see (build it with weft-cc, "
             "docs/process-state.md)";
    case Incompleteness::kSignalHandler:
      return "every interleaving was explored, but weft tried only some of the places where "
             "the kernel could run a signal's handler (" +
             w.signal_handlers +
             "): in a thread other than the sender it runs at the end of that thread's step, "
             "not at later points, and never inside a wait weft does not interrupt (block the "
             "signal in the threads that should not take it, or wait for it with sigwait)";
    case Incompleteness::kSemaphoreReset:
      return "every interleaving was explored, but sem_init set a semaphore again after threads "
             "had used it (" +
             w.semaphore_resets +
             "), which weft does not order with the threads' operations, so its orders against "
             "them were not explored (give each use its own semaphore, or set it again only "
             "while no other thread runs)";
    case Incompleteness::kStrategyGaps:
      return "the " + w.strategy + " strategy did not cover all it set out to: " + r.strategy_gaps;
    case Incompleteness::kNotExhaustive:
      return "the " + w.strategy + " strategy does not explore exhaustively" + coverage();
    case Incompleteness::kLocalStatesOnly:
      return "every reachable local state of every thread was covered, so every assertion "
             "failure and crash; not " +
             std::string(r.uncovered) + " (use " + w.optimal_choice + " for those)";
    case Incompleteness::kStoppedAtFirstBug:
      return "stopped at the first bug (" + w.stop_on_first_bug + ")";
    case Incompleteness::kStoppedAtChosenBug:
      return "stopped at " + w.chosen_bug;
    case Incompleteness::kLimit: {
      std::string text = r.out_of_memory
                             ? "stopped when weft's own memory reached " + w.memory_limit
                             : "stopped by " + w.limits;
      if (r.stopped_mid_execution)
        text += " (an execution still running at the time limit was stopped)";
      if (r.stopped_mid_analysis)
        text += " (the strategy was still taking in an execution at the time limit)";
      return text + coverage();
    }
  }
  return "";
}

}  // namespace weft::driver
