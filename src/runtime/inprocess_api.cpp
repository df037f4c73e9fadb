// The in-process C++ API (include/weft/weft.hpp) on top of the scheduler core.
#include <cstdio>
#include <string>

#include "counted_channels.hpp"
#include "weft/driver/report.hpp"
#include "weft/driver/verdict_text.hpp"
#include "weft/explore/lockset.hpp"
#include "weft/trace/wire.hpp"
#include "weft/weft.hpp"

namespace weft {
namespace detail {

runtime::Scheduler& scheduler(const char* what) {
  runtime::Scheduler* s = runtime::Scheduler::current();
  if (!s)
    throw usage_error(std::string(what) +
                      " used outside weft::explore/weft::replay: create weft primitives inside the "
                      "test closure, which weft runs once per execution");
  return *s;
}

std::uint8_t perform(const Operation& op, const char* what) {
  return scheduler(what).perform(op);
}

void atomic_store(ObjectKey key, void* where, const void* bytes, std::size_t size, bool seq_cst,
                  const char* what) {
  runtime::Scheduler& s = scheduler(what);
  s.store(key, where, bytes, static_cast<std::uint32_t>(size));
  if (seq_cst) s.fence();
}

void forward_buffered(ObjectKey key, void* value, std::size_t size) {
  runtime::Scheduler* s = runtime::Scheduler::current();
  if (s && s->memory_model() == MemoryModel::kTso)
    s->forward_buffered(key, static_cast<std::uint32_t>(size), value);
}

void fence(const char* what) {
  scheduler(what).fence();
}

bool rc11_active() noexcept {
  const runtime::Scheduler* s = runtime::Scheduler::current();
  return s && s->rc11();
}

void rc11_load(ObjectKey key, std::memory_order order, void* value, std::size_t size) {
  runtime::Scheduler::current()->rc11_load(key, order, value, static_cast<std::uint32_t>(size));
}

void rc11_store(ObjectKey key, std::memory_order order, void* memory, const void* value,
                std::size_t size) {
  runtime::Scheduler::current()->rc11_store(key, order, memory, value,
                                            static_cast<std::uint32_t>(size));
}

void rc11_update_read(ObjectKey key, std::memory_order order, void* value, std::size_t size) {
  runtime::Scheduler::current()->rc11_update_read(key, order, value,
                                                  static_cast<std::uint32_t>(size));
}

void rc11_update_write(void* memory, const void* value, std::size_t size) {
  runtime::Scheduler::current()->rc11_update_write(memory, value, static_cast<std::uint32_t>(size));
}

bool rc11_compare_exchange(ObjectKey key, std::memory_order success, std::memory_order failure,
                           void* memory, void* seen, const void* expected, const void* desired,
                           std::size_t size) {
  return runtime::Scheduler::current()->rc11_compare_exchange(
      key, success, failure, memory, seen, expected, desired, static_cast<std::uint32_t>(size));
}

void rc11_fence(std::memory_order order, const char* what) {
  scheduler(what).rc11_fence(order);
}

void forget_location(ObjectKey key, std::size_t size) noexcept {
  runtime::Scheduler* s = runtime::Scheduler::current();
  if (!s) return;
  try {
    s->forget_location(key, static_cast<std::uint32_t>(size));
  } catch (...) {
    // An execution cut short while the object dies: its buffers are dropped with it.
  }
}

ObjectKey new_channel(std::size_t capacity, const char* what) {
  runtime::Scheduler& s = scheduler(what);
  const ObjectKey key = s.new_object();
  s.counted_channels().add(key, static_cast<std::uint32_t>(capacity));
  return key;
}

void channel_send(ObjectKey key, const char* what) {
  runtime::Scheduler& s = scheduler(what);
  // The send names the channel's room (partner), for strategies that reason about the channel's
  // state from the trace (reachability testing's OpenLists).
  if (!s.perform({OpKind::kChannelSend, 0, 0, key, s.counted_channels().room(key)}))
    s.fail(Outcome::kMisuse, "thread " + s.threads().name(s.self()) + ": " + what + " on channel " +
                                 object_name(key) + ", which is closed");
}

void channel_await_taken(ObjectKey key, const char* what) {
  runtime::Scheduler& s = scheduler(what);
  const std::uint64_t ticket = s.counted_channels().last_ticket(key);
  s.perform({OpKind::kChannelReceive, 0, 0, key, ticket});
}

bool channel_receive(ObjectKey key, bool wait, const char* what) {
  return perform({OpKind::kChannelReceive, 0, 0, key, 0, !wait}, what) != 0;
}

void channel_close(ObjectKey key, const char* what) {
  perform({OpKind::kChannelClose, 0, 0, key, 0}, what);
}

std::size_t channel_select(std::vector<ObjectKey> open, const char* what) {
  runtime::Scheduler& s = scheduler(what);
  // partner 1: only a message makes an alternative ready, not the end of its channel.
  Operation select{OpKind::kChannelSelect, 0, 0, 0, 1};
  set_watched(select, open);
  s.counted_channels().will_select(s.self(), std::move(open));
  return static_cast<std::size_t>(s.perform(select) - 1);
}

void assertion_failed(const char* condition, const char* file, int line) {
  auto& s = scheduler("WEFT_ASSERT");
  s.fail(Outcome::kAssertionFailure, std::string("assertion failed: ") + condition + " (" + file +
                                         ":" + std::to_string(line) + ") in thread " +
                                         s.threads().name(s.self()));
}

}  // namespace detail

// ---- thread -------------------------------------------------------------------------------

thread& thread::operator=(thread&& o) noexcept {
  if (joinable()) {
    if (auto* s = runtime::Scheduler::current(); s && !s->aborting())
      s->note_failure(Outcome::kMisuse,
                      "a joinable weft::thread was assigned to (std::thread would terminate)");
  }
  id_ = std::exchange(o.id_, kNoThread);
  return *this;
}

thread::~thread() {
  if (!joinable()) return;
  if (auto* s = runtime::Scheduler::current(); s && !s->aborting())
    s->note_failure(Outcome::kMisuse, "thread " + s->threads().name(s->self()) +
                                          " destroyed weft::thread " + s->threads().name(id_) +
                                          " while it was joinable (std::thread would call "
                                          "std::terminate): join or detach it");
}

void thread::join() {
  auto& s = detail::scheduler("weft::thread::join");
  if (!joinable()) s.fail(Outcome::kMisuse, "join of a weft::thread that is not joinable");
  const ThreadId target = id_;
  detail::perform({OpKind::kThreadJoin, 0, 0, target, 0}, "weft::thread::join");
  id_ = kNoThread;
}

void thread::detach() {
  auto& s = detail::scheduler("weft::thread::detach");
  if (!joinable()) s.fail(Outcome::kMisuse, "detach of a weft::thread that is not joinable");
  id_ = kNoThread;
}

// ---- explore / replay ---------------------------------------------------------------------

namespace {

void refuse_nesting(const char* what) {
  if (runtime::Scheduler::current())
    throw usage_error(std::string(what) + " called inside a test that weft is exploring");
}

std::string replay_hint(const std::string& schedule) {
  return "weft::replay(\"" + schedule + "\", test)";
}

Bug make_bug(const explorer::FoundBug& found, const ThreadRegistry& threads, bool with_hint) {
  Bug bug;
  bug.kind = found.outcome;
  bug.message = found.message;
  bug.schedule =
      encode_test(found.schedule, found.trace.symbolic.values(), threads, found.trace.choices);
  bug.inputs = found.trace.symbolic.inputs;
  bug.report =
      driver::format_bug(found, threads, bug.schedule, with_hint ? replay_hint(bug.schedule) : "");
  return bug;
}

// The in-process API's words for why an exploration is incomplete (the command line names its
// options instead of Options' fields).
std::string describe(Incompleteness why, const explorer::ExplorationResult& r,
                     const Options& options) {
  driver::VerdictWords words;
  words.strategy = explorer::strategy_name(options.strategy);
  words.unfolding = explorer::strategy_info(options.strategy).has(explorer::kBuildsUnfolding);
  words.unsupported = r.unsupported;
  words.first_bound = r.first_bound_message;
  words.fixed_inputs = "one value";
  words.input_gaps = driver::describe_input_gaps(r.stats.inputs);
  for (const std::string& what : r.unrestored_state)
    words.unrestored += (words.unrestored.empty() ? "" : ", ") + what;
  words.stop_on_first_bug = "Options::stop_on_first_bug";
  words.chosen_bug = "a chosen bug";
  char limits[128];
  std::snprintf(limits, sizeof limits,
                "Options::max_executions or max_seconds (%llu executions, %g s; 0: none)",
                static_cast<unsigned long long>(options.max_executions), options.max_seconds);
  words.limits = limits;
  words.memory_limit = "its limit";
  words.optimal_choice = "StrategyKind::kOptimalDpor";
  return driver::incompleteness_text(why, r, words);
}

}  // namespace

std::string Result::summary() const {
  std::string s;
  switch (verdict) {
    case Verdict::kBugFound:
      s = std::to_string(bugs.size()) + (bugs.size() == 1 ? " bug found" : " bugs found");
      break;
    case Verdict::kNoBugFound:
      s = "no bug found: exploration complete";
      break;
    case Verdict::kIncomplete:
      s = "no bug found, exploration incomplete (" + incomplete_reason + ")";
      break;
    case Verdict::kUnsupported:
      s = "no verdict: " + incomplete_reason;
      break;
  }
  if (assumed_thread_symmetry && verdict != Verdict::kBugFound)
    s += " (up to the order of threads taken as interchangeable: thread_symmetry)";
  if (memory_model != MemoryModel::kSequentialConsistency)
    s += " under " + std::string(memory_model_title(memory_model));
  // What weft makes stronger than the language: fewer behaviours than C++ allows.
  if (memory_model == MemoryModel::kRc11 && verdict != Verdict::kBugFound)
    s += " (atomics over 8 bytes taken as sequentially consistent, and synchronisation besides "
         "weft::atomic as acquiring and releasing its object)";
  return s + "; " + driver::format_statistics(stats);
}

Result explore(const Options& options, const std::function<void()>& test) {
  refuse_nesting("weft::explore");
  if (const auto problem = explorer::problem_with(options))
    throw usage_error(std::string("Options::") + problem->field + " " + problem->problem);
  ThreadRegistry threads;
  runtime::Scheduler scheduler(threads);
  explorer::StrategyConfig config = explorer::strategy_config(options);
  if (!options.start_from.empty()) {
    try {
      config.initial_prefix = decode_schedule(options.start_from, threads);
    } catch (const WireError& e) {
      throw replay_error(std::string("Options::start_from is not a weft schedule: ") + e.what());
    }
  }
  auto strategy = explorer::make_strategy(config);
  const explorer::ExplorationLimits limits = explorer::exploration_limits(options);
  runtime::RunLimits run_limits;
  run_limits.max_steps_per_thread = options.max_steps_per_thread;
  run_limits.memory_model = explorer::memory_model_of(options);

  const auto policy = explorer::read_policy_of(options.strategy);
  auto explored = explorer::run_exploration(
      *strategy, policy,
      [&](const TestDirective& d) {
        Trace t = scheduler.run(d, test, run_limits);
        if (options.lockset) explorer::check_locking_discipline(t, threads, true);
        return t;
      },
      limits);

  Result result;
  result.stats = explored.stats;
  for (const auto& b : explored.bugs) result.bugs.push_back(make_bug(b, threads, true));
  const explorer::Decision decision = explorer::decide(explored, strategy->exhaustive(), limits);
  result.verdict = decision.verdict;
  result.incomplete_code = decision.why;
  result.incomplete_reason = describe(decision.why, explored, options);
  result.assumed_thread_symmetry = options.thread_symmetry;
  result.memory_model = explorer::memory_model_of(options);
  return result;
}

Result replay(std::string_view schedule, const std::function<void()>& test,
              const Options& options) {
  refuse_nesting("weft::replay");
  ThreadRegistry threads;
  TestDirective d;
  try {
    EncodedTest test = decode_test(schedule, threads);
    d.prefix = std::move(test.schedule);
    d.inputs = std::move(test.inputs);
    d.choices = std::move(test.choices);
    // Every option offered, as the exploration of graphs offers them: option 0 is the newest
    // store either way, so a schedule of any strategy keeps its meaning.
    d.every_option = true;
  } catch (const WireError& e) {
    throw replay_error(std::string("not a weft schedule: ") + e.what());
  }
  runtime::Scheduler scheduler(threads);
  runtime::RunLimits limits;
  limits.max_steps_per_thread = options.max_steps_per_thread;
  limits.memory_model = explorer::memory_model_of(options);
  const auto started = std::chrono::steady_clock::now();
  Trace trace = scheduler.run(d, test, limits);
  if (options.lockset) explorer::check_locking_discipline(trace, threads, true);
  if (trace.diverged_at) {
    const std::size_t k = *trace.diverged_at;
    throw replay_error("the schedule does not fit this test: step " + std::to_string(k + 1) +
                       " runs thread " + threads.name(d.prefix[k]) +
                       ", which is not enabled there; replay it with the test (and version) that "
                       "produced it");
  }
  if (trace.prefix_followed < d.prefix.size())
    throw replay_error("the schedule does not fit this test: it has " +
                       std::to_string(d.prefix.size()) + " steps but the test ended after " +
                       std::to_string(trace.prefix_followed) + " (" + outcome_name(trace.outcome) +
                       ")");
  Result result;
  result.memory_model = explorer::memory_model_of(options);
  result.stats.executions = 1;
  result.stats.events = trace.events.size();
  result.stats.complete = is_maximal(trace.outcome) ? 1 : 0;
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (is_bug(trace.outcome)) {
    const explorer::FoundBug b = explorer::found_bug(
        trace, trace.outcome == Outcome::kDeadlock ? nullptr : &trace.failures.front());
    result.bugs.push_back(make_bug(b, threads, false));
    result.verdict = Verdict::kBugFound;
  } else {
    result.verdict = Verdict::kIncomplete;
    result.incomplete_code = Incompleteness::kNotExhaustive;
    result.incomplete_reason = "a replay runs one execution";
  }
  return result;
}

}  // namespace weft
