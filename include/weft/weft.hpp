// weft's in-process C++ API: systematic testing of concurrent C++ code inside a unit test.
//
//   weft::Result r = weft::explore([] {
//     weft::shared<int> x{0};                  // state is built inside the closure, every run
//     weft::thread t([&] { x = x + 1; });
//     x = x + 1;
//     t.join();
//     WEFT_ASSERT(x == 2);                     // fails in some interleaving: a lost update
//   });
//   if (!r.ok()) std::cout << r.bugs[0].report;  // the interleaving, and how to replay it
//
// explore() runs the closure again and again, each time under a different schedule chosen by the
// exploration strategy, until every behaviour has been covered (or a bug is found, or a limit is
// hit). The closure must build all state it shares between threads itself, every run, and join
// the threads it starts: weft restarts it from scratch for each execution (as Loom does). Only
// operations on weft's primitives are scheduling points; code between them runs atomically, so
// every piece of shared state must be a weft primitive (use weft::shared<T> for plain variables).
// Using a primitive outside explore()/replay() throws weft::usage_error.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "weft/explore/exploration.hpp"
#include "weft/explore/options.hpp"
#include "weft/explore/strategy.hpp"
#include "weft/explore/verdict.hpp"
#include "weft/runtime/scheduler.hpp"
#include "weft/trace/operation.hpp"
#include "weft/trace/trace.hpp"
#include "weft/value.hpp"

namespace weft {

/// A primitive was used where it cannot work (outside explore/replay, nested explore...).
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// A replay schedule that cannot be parsed or does not fit the test.
class replay_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using explorer::Statistics;
using explorer::StrategyKind;
/// bug found, no bug found (every behaviour covered), incomplete, or unsupported (the test used
/// something weft does not model); the command line decides its verdicts the same way.
using explorer::Verdict;
/// Why a verdict is incomplete, as a code (explorer/verdict.hpp).
using explorer::Incompleteness;

/// The strategy and its settings, the limits and what to count (strategy, sleep_sets,
/// search_deadlocks, random_executions, seed, pct_depth, pct_steps, max_bound, pv_reduction,
/// thread_symmetry, alternatives,
/// stop_on_first_bug, max_executions, max_seconds, count_traces, estimate_size) are
/// explorer::ExploreOptions', which the command line shares; the rest are the API's own.
/// (StrategyKind::kPortfolio shares max_seconds among strategies when the estimate says optimal
/// DPOR will not finish in them.)
struct Options : explorer::ExploreOptions {
  /// Per-thread bound on visible operations (thesis §3.4), and on inputs read; a thread that
  /// reaches it stops there while the others run on, and the execution ends with "bound
  /// reached" (not a bug; the verdict becomes incomplete).
  std::uint32_t max_steps_per_thread = kDefaultMaxStepsPerThread;
  /// A schedule (as in a bug report) that the first execution follows.
  std::string start_from;
};

struct Bug {
  Outcome kind = Outcome::kAssertionFailure;
  std::string message;
  /// The interleaving, and the input values when the test read inputs, as a compact string;
  /// weft::replay(schedule, test) reproduces the bug.
  std::string schedule;
  /// The inputs the execution read (weft::input), with their values.
  std::vector<InputRead> inputs;
  /// Human-readable: the bug, the interleaving indented by thread, and how to replay it.
  std::string report;
};

struct Result {
  Verdict verdict = Verdict::kNoBugFound;
  std::vector<Bug> bugs;
  Statistics stats;
  /// Why the exploration did not cover every behaviour (also when bugs were found), as a code
  /// and as text; kNone and "" when it did.
  Incompleteness incomplete_code = Incompleteness::kNone;
  std::string incomplete_reason;
  /// Options::thread_symmetry was set: what the verdict covers, it covers up to the order of
  /// threads taken as interchangeable (summary() says so).
  bool assumed_thread_symmetry = false;
  /// The memory model the executions followed (Options::memory_model).
  MemoryModel memory_model = MemoryModel::kSequentialConsistency;
  bool ok() const { return bugs.empty(); }
  /// One paragraph: verdict and statistics.
  std::string summary() const;
};

/// Explores `test` with the given options.
Result explore(const Options& options, const std::function<void()>& test);
inline Result explore(const std::function<void()>& test) {
  return explore(Options{}, test);
}

/// Re-executes `test` once, following `schedule` (from a Bug) exactly. Throws replay_error when
/// the schedule cannot be parsed or does not fit the test.
Result replay(std::string_view schedule, const std::function<void()>& test,
              const Options& options = {});

namespace detail {
/// The scheduler of the running execution; throws usage_error naming `what` outside one.
runtime::Scheduler& scheduler(const char* what);
std::uint8_t perform(const Operation& op, const char* what);
[[noreturn]] void assertion_failed(const char* condition, const char* file, int line);
}  // namespace detail

/// A thread under weft's control (like std::thread; must be joined or detached).
class thread {
 public:
  thread() noexcept = default;
  template <class F, class... Args>
  explicit thread(F&& f, Args&&... args) {
    // The callable's type names the code the thread starts at (thread symmetry).
    id_ = detail::scheduler("weft::thread")
              .spawn([fn = std::forward<F>(f),
                      ... as = std::forward<Args>(args)]() mutable { std::invoke(fn, as...); },
                     0, typeid(std::decay_t<F>).hash_code() | 1);
  }
  thread(thread&& o) noexcept : id_(std::exchange(o.id_, kNoThread)) {}
  thread& operator=(thread&& o) noexcept;
  thread(const thread&) = delete;
  thread& operator=(const thread&) = delete;
  ~thread();

  bool joinable() const noexcept { return id_ != kNoThread; }
  void join();
  void detach();
  /// weft's stable id of the thread (its name in reports is ThreadRegistry::name of it).
  ThreadId get_id() const noexcept { return id_; }

 private:
  ThreadId id_ = kNoThread;
};

/// A mutex (works with std::lock_guard, std::unique_lock, std::scoped_lock).
class mutex {
 public:
  mutex() : key_(detail::scheduler("weft::mutex").new_object()) {}
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  void lock() { detail::perform({OpKind::kMutexLock, 0, 0, key_, 0}, "weft::mutex::lock"); }
  bool try_lock() {
    return detail::perform({OpKind::kMutexTryLock, 0, 0, key_, 0}, "weft::mutex::try_lock") != 0;
  }
  void unlock() { detail::perform({OpKind::kMutexUnlock, 0, 0, key_, 0}, "weft::mutex::unlock"); }
  ObjectKey key() const { return key_; }

 private:
  ObjectKey key_;
};

/// A condition variable for weft::mutex. No spurious wake-ups: a waiter wakes only when signalled
/// (which waiter a notify_one wakes is a scheduling choice that weft explores).
class condition_variable {
 public:
  condition_variable() : key_(detail::scheduler("weft::condition_variable").new_object()) {}
  condition_variable(const condition_variable&) = delete;
  condition_variable& operator=(const condition_variable&) = delete;
  void wait(std::unique_lock<mutex>& lock) {
    detail::perform({OpKind::kCondWait, 0, 0, key_, lock.mutex()->key()},
                    "weft::condition_variable::wait");
  }
  template <class Predicate>
  void wait(std::unique_lock<mutex>& lock, Predicate pred) {
    while (!pred()) wait(lock);
  }
  void notify_one() {
    detail::perform({OpKind::kCondSignal, 0, 0, key_, 0}, "weft::condition_variable::notify_one");
  }
  void notify_all() {
    detail::perform({OpKind::kCondBroadcast, 0, 0, key_, 0},
                    "weft::condition_variable::notify_all");
  }

 private:
  ObjectKey key_;
};

/// A counting semaphore (like std::counting_semaphore).
template <std::ptrdiff_t LeastMaxValue = 1 << 30>
class counting_semaphore {
 public:
  explicit counting_semaphore(std::ptrdiff_t desired)
      : key_(detail::scheduler("weft::counting_semaphore").new_object()) {
    detail::scheduler("weft::counting_semaphore")
        .init_semaphore(key_, static_cast<std::uint64_t>(desired));
  }
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }
  void acquire() {
    detail::perform({OpKind::kSemWait, 0, 0, key_, 0}, "weft::counting_semaphore::acquire");
  }
  void release(std::ptrdiff_t update = 1) {
    for (std::ptrdiff_t i = 0; i < update; ++i)
      detail::perform({OpKind::kSemPost, 0, 0, key_, 0}, "weft::counting_semaphore::release");
  }

 private:
  ObjectKey key_;
};
using binary_semaphore = counting_semaphore<1>;

/// A monitor (Lei and Carver §II-D): methods run one at a time between enter() and exit(), and
/// condition variables wait inside it. Two signalling disciplines:
///  - signal-and-urgent-wait (SU, Hoare's): a signal hands the monitor to the signalled thread at
///    once, and the signaller waits to re-enter before any thread that calls enter();
///  - signal-and-continue (SC, Mesa's, as std::condition_variable): the signaller goes on, and the
///    signalled thread competes with the others to re-enter, so a waiter must recheck its
///    condition.
/// Built on weft's semaphores as Carver and Tai's textbook builds it, so every strategy explores
/// it; its counters need no weft type, as only the thread inside the monitor touches them.
class monitor {
 public:
  enum class discipline { signal_and_urgent_wait, signal_and_continue };
  explicit monitor(discipline d) : discipline_(d), entry_(1), urgent_(0) {}
  monitor(const monitor&) = delete;
  monitor& operator=(const monitor&) = delete;

  class condition {
   public:
    explicit condition(monitor& m) : monitor_(m), waiting_(0) {}
    condition(const condition&) = delete;
    condition& operator=(const condition&) = delete;
    /// Leaves the monitor and waits for a signal; inside it again on return.
    void wait() { monitor_.wait(*this); }
    /// Wakes one waiter, if any (which one is explored).
    void signal() { monitor_.signal(*this); }
    /// Wakes every waiter (under SU, one after the other, each handed the monitor in turn).
    void signal_all() { monitor_.signal_all(*this); }
    /// Whether no thread waits on it.
    bool empty() const { return count_ == 0; }

   private:
    friend class monitor;
    monitor& monitor_;
    counting_semaphore<> waiting_;
    int count_ = 0;
  };

  void enter() { entry_.acquire(); }
  void exit() { leave(); }

  /// enter() for the scope: `monitor::method m(monitor_)`.
  class method {
   public:
    explicit method(monitor& m) : m_(m) { m_.enter(); }
    ~method() { m_.exit(); }
    method(const method&) = delete;
    method& operator=(const method&) = delete;

   private:
    monitor& m_;
  };

 private:
  // Who may come in next: a signaller waiting to re-enter (SU) before a new caller.
  void leave() {
    if (urgent_count_ > 0)
      urgent_.release();
    else
      entry_.release();
  }
  void wait(condition& c) {
    ++c.count_;
    leave();
    c.waiting_.acquire();
    if (discipline_ == discipline::signal_and_urgent_wait) {
      --c.count_;  // handed the monitor by the signaller
    } else {
      entry_.acquire();  // competes with every caller to re-enter
    }
  }
  void signal(condition& c) {
    if (c.count_ == 0) return;
    if (discipline_ == discipline::signal_and_urgent_wait) {
      ++urgent_count_;
      c.waiting_.release();
      urgent_.acquire();
      --urgent_count_;
    } else {
      --c.count_;
      c.waiting_.release();
    }
  }
  void signal_all(condition& c) {
    while (c.count_ > 0) signal(c);
  }
  discipline discipline_;
  counting_semaphore<> entry_;   // the monitor's lock, as a semaphore so that SU can hand it over
  counting_semaphore<> urgent_;  // SU: signallers waiting to re-enter
  int urgent_count_ = 0;
};

namespace detail {
/// A new channel of the running execution holding up to `capacity` messages (0: a rendezvous).
ObjectKey new_channel(std::size_t capacity, const char* what);
/// A send on channel `key`: waits until it has room; a send on a closed channel is misuse.
void channel_send(ObjectKey key, const char* what);
/// A rendezvous send's second half: waits until the message just sent is received.
void channel_await_taken(ObjectKey key, const char* what);
/// A receive on `key`: waits (unless `wait` is false) until it has a message or is closed;
/// true if it took one.
bool channel_receive(ObjectKey key, bool wait, const char* what);
void channel_close(ObjectKey key, const char* what);
/// A selective wait over the channels of the open alternatives: waits until one has a message
/// and takes it from the first such; returns its position in `open`.
std::size_t channel_select(std::vector<ObjectKey> open, const char* what);
}  // namespace detail

/// A channel between threads (RichTest's ports, Lei and Carver §II-A/B): with a capacity, a send
/// waits while it is full (asynchronous message passing); with capacity 0 it is a rendezvous,
/// where a send waits until its message is received (synchronous message passing). Messages
/// are received in the order they were sent. Each send, receive, close and selective wait is a
/// visible operation.
template <class T>
class channel {
 public:
  explicit channel(std::size_t capacity = 0)
      : key_(detail::new_channel(capacity, "weft::channel")), rendezvous_(capacity == 0) {}
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  void send(T value) {
    detail::channel_send(key_, "weft::channel::send");
    messages_.push_back(std::move(value));
    if (rendezvous_) detail::channel_await_taken(key_, "weft::channel::send");
  }
  /// The next message; nullopt once the channel is closed and empty.
  std::optional<T> receive() { return take(true); }
  /// The next message if there is one now.
  std::optional<T> try_receive() { return take(false); }
  /// No more sends: receivers get the messages left, then nullopt.
  void close() { detail::channel_close(key_, "weft::channel::close"); }
  ObjectKey key() const noexcept { return key_; }

 private:
  template <class U, class F>
  friend struct alternative;
  std::optional<T> take(bool wait) {
    if (!detail::channel_receive(key_, wait, "weft::channel::receive")) return std::nullopt;
    return pop();
  }
  T pop() {
    T value = std::move(messages_.front());
    messages_.pop_front();
    return value;
  }
  ObjectKey key_;
  bool rendezvous_;
  std::deque<T> messages_;
};

/// One alternative of a selective wait: when `open`, receive from `from` and call `then` with
/// the message (see weft::select).
template <class T, class F>
struct alternative {
  bool open;
  channel<T>* from;
  F then;
  void take() { then(from->pop()); }
};
/// An alternative with a guard (RichTest's `when (guard) => p.receive()`).
template <class T, class F>
alternative<T, F> when(bool guard, channel<T>& from, F then) {
  return {guard, &from, std::move(then)};
}
/// An alternative without a guard.
template <class T, class F>
alternative<T, F> on(channel<T>& from, F then) {
  return {true, &from, std::move(then)};
}

/// A selective wait (Lei and Carver §II-B): waits until a channel of an open alternative has a
/// message, receives it from the first such and runs that alternative's handler. Returns the
/// alternative's position among the arguments. Which alternative is taken depends only on which
/// channels have messages when it runs, so the exploration tries it before and after each send.
template <class... Alternatives>
std::size_t select(Alternatives&&... alternatives) {
  std::vector<ObjectKey> open;
  std::vector<std::size_t> position;
  std::size_t i = 0;
  ((alternatives.open ? (open.push_back(alternatives.from->key()), position.push_back(i), ++i)
                      : ++i),
   ...);
  const std::size_t chosen = position[detail::channel_select(std::move(open), "weft::select")];
  std::size_t j = 0;
  ((j++ == chosen ? alternatives.take() : void()), ...);
  return chosen;
}

namespace detail {
template <class T>
ObjectKey memory_object(const char* what) {
  static_assert(std::is_trivially_copyable_v<T>, "weft::shared/atomic need a trivially copyable T");
  static_assert(sizeof(T) < kInProcessObjectSpacing, "type too large for a weft location");
  return scheduler(what).new_object();
}
/// An atomic store of `size` bytes: buffered under x86-TSO, then fenced if `seq_cst`
/// (Scheduler::store).
void atomic_store(ObjectKey key, void* where, const void* bytes, std::size_t size, bool seq_cst,
                  const char* what);
/// Overlays the calling thread's buffered stores to `key` on `value` (x86-TSO).
void forward_buffered(ObjectKey key, void* value, std::size_t size);
/// Scheduler::fence of the calling thread.
void fence(const char* what);
/// Scheduler::forget_location, when an execution runs (an atomic's destructor).
void forget_location(ObjectKey key, std::size_t size) noexcept;
/// Whether the calling thread's execution follows RC11; then an atomic of at most 8 bytes goes
/// through these (Scheduler::rc11_load and the rest), after its visible operation.
bool rc11_active() noexcept;
void rc11_load(ObjectKey key, std::memory_order order, void* value, std::size_t size);
void rc11_store(ObjectKey key, std::memory_order order, void* memory, const void* value,
                std::size_t size);
void rc11_update_read(ObjectKey key, std::memory_order order, void* value, std::size_t size);
void rc11_update_write(void* memory, const void* value, std::size_t size);
bool rc11_compare_exchange(ObjectKey key, std::memory_order success, std::memory_order failure,
                           void* memory, void* seen, const void* expected, const void* desired,
                           std::size_t size);
/// A fence under RC11: a visible operation, then the fence.
void rc11_fence(std::memory_order order, const char* what);
/// The order of a failed compare-exchange given only its order, as std::atomic takes it.
constexpr std::memory_order failure_order(std::memory_order order) {
  return order == std::memory_order_acq_rel   ? std::memory_order_acquire
         : order == std::memory_order_release ? std::memory_order_relaxed
                                              : order;
}
template <class T>
Operation access(OpKind kind, ObjectKey key) {
  return Operation{kind, 0, static_cast<std::uint32_t>(sizeof(T)), key, 0};
}
}  // namespace detail

/// A plain shared variable: every read and every write is a visible operation (the thesis'
/// model of a program). `x = x + 1` is a read followed by a write, and can lose updates.
template <class T>
class shared {
 public:
  shared() : shared(T{}) {}
  shared(T value) : key_(detail::memory_object<T>("weft::shared")), value_(value) {}
  shared(const shared&) = delete;
  shared& operator=(const shared&) = delete;

  T load() const {
    detail::perform(detail::access<T>(OpKind::kRead, key_), "weft::shared read");
    return value_;
  }
  void store(T value) {
    detail::perform(detail::access<T>(OpKind::kWrite, key_), "weft::shared write");
    value_ = value;
  }
  operator T() const { return load(); }
  shared& operator=(T value) {
    store(value);
    return *this;
  }
  shared& operator+=(T d) { return *this = load() + d; }
  shared& operator-=(T d) { return *this = load() - d; }
  shared& operator++() { return *this += T{1}; }
  shared& operator--() { return *this -= T{1}; }

 private:
  ObjectKey key_;
  T value_;
};

/// An atomic. Each access is a visible operation; the memory order matters under the weak
/// memory models (Options::memory_model): under x86-TSO a store waits in its thread's store
/// buffer, except a seq_cst one, which is followed by a fence (as compilers map it to x86);
/// read-modify-writes drain the buffer first, as x86's locked instructions do. Under RC11 a
/// load may read any store the orders allow (an atomic of more than 8 bytes acts as under
/// sequential consistency). Under sequential consistency every order acts as seq_cst.
template <class T>
class atomic {
 public:
  atomic() : atomic(T{}) {}
  atomic(T value) : key_(detail::memory_object<T>("weft::atomic")), value_(value) {}
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;
  /// Stores still waiting in a buffer for it are dropped (after this thread's own are flushed).
  ~atomic() { detail::forget_location(key_, sizeof(T)); }

  T load(std::memory_order order = std::memory_order_seq_cst) const {
    detail::perform(detail::access<T>(OpKind::kAtomicLoad, key_), "weft::atomic::load");
    T value = value_;
    if (rc11())
      detail::rc11_load(key_, order, &value, sizeof(T));
    else  // x86 loads need no fence, whatever the order
      detail::forward_buffered(key_, &value, sizeof(T));
    return value;
  }
  void store(T value, std::memory_order order = std::memory_order_seq_cst) {
    if (rc11()) {
      detail::perform(detail::access<T>(OpKind::kAtomicStore, key_), "weft::atomic::store");
      detail::rc11_store(key_, order, &value_, &value, sizeof(T));
      return;
    }
    detail::atomic_store(key_, &value_, &value, sizeof(T), order == std::memory_order_seq_cst,
                         "weft::atomic::store");
  }
  // Read-modify-writes are locked instructions on x86, whatever the order: each drains the
  // thread's buffer first (Scheduler::perform), so the order matters only under RC11.
  T exchange(T value, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([value](T) { return value; }, order, "weft::atomic::exchange");
  }
  bool compare_exchange_strong(T& expected, T desired,
                               std::memory_order order = std::memory_order_seq_cst) {
    return compare_exchange_strong(expected, desired, order, detail::failure_order(order));
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                               std::memory_order failure) {
    detail::perform(detail::access<T>(OpKind::kAtomicCas, key_), "weft::atomic::compare_exchange");
    if (rc11()) {
      T seen = value_;
      const bool stored = detail::rc11_compare_exchange(key_, success, failure, &value_, &seen,
                                                        &expected, &desired, sizeof(T));
      if (!stored) expected = seen;
      return stored;
    }
    if (value_ == expected) {
      value_ = desired;
      return true;
    }
    expected = value_;
    return false;
  }
  bool compare_exchange_weak(T& expected, T desired,
                             std::memory_order order = std::memory_order_seq_cst) {
    return compare_exchange_strong(expected, desired, order);
  }
  T fetch_add(T d, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([d](T v) { return static_cast<T>(v + d); }, order);
  }
  T fetch_sub(T d, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([d](T v) { return static_cast<T>(v - d); }, order);
  }
  T fetch_and(T d, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([d](T v) { return static_cast<T>(v & d); }, order);
  }
  T fetch_or(T d, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([d](T v) { return static_cast<T>(v | d); }, order);
  }
  T fetch_xor(T d, std::memory_order order = std::memory_order_seq_cst) {
    return rmw([d](T v) { return static_cast<T>(v ^ d); }, order);
  }
  operator T() const { return load(); }
  T operator=(T value) {
    store(value);
    return value;
  }
  T operator++() { return static_cast<T>(fetch_add(T{1}) + 1); }
  T operator++(int) { return fetch_add(T{1}); }
  T operator--() { return static_cast<T>(fetch_sub(T{1}) - 1); }
  T operator--(int) { return fetch_sub(T{1}); }
  T operator+=(T d) { return static_cast<T>(fetch_add(d) + d); }
  T operator-=(T d) { return static_cast<T>(fetch_sub(d) - d); }

 private:
  static bool rc11() noexcept { return sizeof(T) <= 8 && detail::rc11_active(); }
  template <class F>
  T rmw(F f, std::memory_order order, const char* what = "weft::atomic fetch operation") {
    detail::perform(detail::access<T>(OpKind::kAtomicRmw, key_), what);
    if (rc11()) {
      T old = value_;
      detail::rc11_update_read(key_, order, &old, sizeof(T));
      const T written = f(old);
      detail::rc11_update_write(&value_, &written, sizeof(T));
      return old;
    }
    return std::exchange(value_, f(value_));
  }
  ObjectKey key_;
  T value_;
};

/// A fence (std::atomic_thread_fence; call it qualified, weft::atomic_thread_fence, since a
/// std::memory_order argument also finds std's): under x86-TSO a seq_cst fence waits until the
/// calling thread's store buffer is empty (mfence); weaker fences are no-ops there, as on x86.
/// Under RC11 a fence of its order in the execution graph (not a scheduling point of its own). A
/// no-op under sequential consistency.
inline void atomic_thread_fence(std::memory_order order) {
  if (detail::rc11_active()) {
    if (order != std::memory_order_relaxed) detail::rc11_fence(order, "weft::atomic_thread_fence");
    return;
  }
  if (order == std::memory_order_seq_cst) detail::fence("weft::atomic_thread_fence");
}

/// A scheduling point that touches nothing (std::this_thread::yield).
inline void yield() {
  detail::perform({OpKind::kYield, 0, 0, 0, 0}, "weft::yield");
}

}  // namespace weft

/// Checks `cond` inside a test; when it fails the execution ends with an assertion failure that
/// weft reports with its schedule.
#define WEFT_ASSERT(cond)                                                     \
  do {                                                                        \
    if (!(cond)) ::weft::detail::assertion_failed(#cond, __FILE__, __LINE__); \
  } while (0)
