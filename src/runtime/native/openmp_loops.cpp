// OpenMP worksharing loops and sections. Static schedules are computed from the thread's number
// alone, as the OpenMP specification lays them out (one contiguous block per thread, or chunks
// dealt round robin); dynamic and guided schedules hand out chunks from a counter under the
// team's work lock, so which thread gets which chunk is a scheduling choice. Ordered loops pass
// their ordered regions in iteration order. Iterations are counted from 0 ("normalised") inside;
// the program gets and gives bounds in its loop variable's type.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "openmp.hpp"

using weft::runtime::native::openmp::current_task;
using weft::runtime::native::openmp::DispatchedLoop;
using weft::runtime::native::openmp::EntryScope;
using weft::runtime::native::openmp::Ident;
using weft::runtime::native::openmp::Task;
using weft::runtime::native::openmp::WorkShare;

namespace {

namespace omp = weft::runtime::native::openmp;
using omp::not_modelled;

// libomp's schedule numbers (enum sched_type), less the monotonic/nonmonotonic modifier bits.
constexpr int kModifiers = (1 << 29) | (1 << 30);
enum Kind { kStatic, kDynamic, kGuided };
struct Schedule {
  Kind kind = kStatic;
  bool chunked = false;
  bool ordered = false;
  bool runtime = false;  ///< schedule(runtime): OMP_SCHEDULE says
};

Schedule decode(int number) {
  number &= ~kModifiers;
  Schedule s;
  if (number >= 65 && number <= 71) {  // kmp_ord_*: the same schedules, ordered
    s.ordered = true;
    number -= 32;
  }
  switch (number) {
    // Static with a chunk size (33), balanced chunks (45), distribute with a chunk size (91).
    case 33:
    case 45:
    case 91:
      s.chunked = true;
      return s;
    // Static (34, greedy 40, balanced 41, distribute 92); auto (38) is static here.
    case 34:
    case 38:
    case 40:
    case 41:
    case 92:
      return s;
    // Dynamic (35), and trapezoid (39) and static stealing (44), which hand out chunks as it.
    case 35:
    case 39:
    case 44:
      s.kind = kDynamic;
      return s;
    // Guided (36) and its variants (42, 43, 46).
    case 36:
    case 42:
    case 43:
    case 46:
      s.kind = kGuided;
      return s;
    // Runtime (37, 47): OMP_SCHEDULE.
    case 37:
    case 47:
      s.runtime = true;
      return s;
    default:
      not_modelled("a worksharing loop with a schedule number weft does not know");
  }
}

// run-sched-var from OMP_SCHEDULE ("[modifier:]kind[,chunk]"); static by default, as libomp.
Schedule runtime_schedule(Schedule s, std::int64_t& chunk) {
  const char* v = std::getenv("OMP_SCHEDULE");
  if (!v) return s;
  if (const char* colon = std::strchr(v, ':')) v = colon + 1;
  if (std::strncmp(v, "dynamic", 7) == 0)
    s.kind = kDynamic;
  else if (std::strncmp(v, "guided", 6) == 0)
    s.kind = kGuided;
  if (const char* comma = std::strchr(v, ',')) {
    chunk = std::strtoll(comma + 1, nullptr, 10);
    s.chunked = s.kind == kStatic && chunk > 0;
  }
  return s;
}

int team_size(const Task& task) {
  return task.team ? task.team->size : 1;
}

bool alone(const Task& task) {
  return team_size(task) == 1;
}

template <typename T, typename S>
std::uint64_t trip_count(T lower, T upper, S incr) {
  using U = std::make_unsigned_t<T>;
  if (incr > 0)
    return upper < lower ? 0 : std::uint64_t(U(U(upper) - U(lower))) / std::uint64_t(incr) + 1;
  if (incr < 0)
    return lower < upper ? 0
                         : std::uint64_t(U(U(lower) - U(upper))) /
                                   (std::uint64_t(0) - std::uint64_t(std::int64_t(incr))) +
                               1;
  not_modelled("a worksharing loop with increment 0");
}

// The value of the loop variable in iteration `k`, with the type's wrap-around.
template <typename T, typename S>
T value_at(T lower, S incr, std::uint64_t k) {
  using U = std::make_unsigned_t<T>;
  return T(U(U(lower) + U(k) * U(incr)));
}

// schedule(static) without a chunk size: contiguous blocks whose sizes differ by at most one,
// the larger ones first.
void static_block(std::uint64_t trip, int threads, int thread, std::uint64_t& begin,
                  std::uint64_t& count) {
  const std::uint64_t n = static_cast<std::uint64_t>(threads);
  const std::uint64_t t = static_cast<std::uint64_t>(thread);
  const std::uint64_t small = trip / n;
  const std::uint64_t extra = trip % n;
  begin = t * small + (t < extra ? t : extra);
  count = small + (t < extra ? 1 : 0);
}

template <typename T, typename S>
void static_init(std::int32_t schedule, std::int32_t* last, T* lower, T* upper, S* stride, S incr,
                 S chunk) {
  EntryScope scope;
  const Task& task = current_task();
  const int threads = team_size(task);
  const std::uint64_t thread = static_cast<std::uint64_t>(task.thread_num);
  const Schedule s = decode(schedule);
  const std::uint64_t trip = trip_count(*lower, *upper, incr);
  using U = std::make_unsigned_t<T>;
  if (last) *last = 0;
  if (trip == 0) {
    *stride = incr;
    return;
  }
  const T first = *lower;
  if (s.chunked) {
    const std::uint64_t c = chunk < 1 ? 1 : static_cast<std::uint64_t>(chunk);
    const std::uint64_t begin = thread * c;
    *lower = value_at(first, incr, begin);
    *upper = value_at(first, incr, begin + c - 1);
    *stride = S(U(U(c) * U(threads) * U(incr)));
    if (last) *last = ((trip - 1) / c) % static_cast<std::uint64_t>(threads) == thread;
    return;
  }
  std::uint64_t begin = 0;
  std::uint64_t count = 0;
  static_block(trip, threads, task.thread_num, begin, count);
  if (count == 0) {
    // Nothing for this thread: a first iteration past the last one.
    *lower = value_at(first, incr, trip);
    *upper = value_at(first, incr, trip - 1);
  } else {
    *lower = value_at(first, incr, begin);
    *upper = value_at(first, incr, begin + count - 1);
    if (last) *last = begin + count == trip;
  }
  *stride = S(U(U(trip) * U(incr)));
}

template <typename T, typename S>
void dispatch_init(std::int32_t schedule, T lower, T upper, S incr, S chunk) {
  EntryScope scope;
  Task& task = current_task();
  Schedule s = decode(schedule);
  std::int64_t chunk_size = chunk;
  if (s.runtime) s = runtime_schedule(s, chunk_size);
  DispatchedLoop& loop = task.loop;
  loop = DispatchedLoop{};
  loop.kind = s.kind;
  loop.ordered = s.ordered;
  loop.lower = static_cast<std::int64_t>(lower);
  loop.incr = static_cast<std::int64_t>(incr);
  loop.chunk = s.kind == kStatic && !s.chunked ? 0 : chunk_size < 1 ? 1 : chunk_size;
  loop.static_next = static_cast<std::uint64_t>(task.thread_num) * loop.chunk;
  loop.shared = &omp::next_construct(task);
  loop.shared->trip = trip_count(lower, upper, incr);  // the same for every thread
}

// The next chunk [begin, begin + count) for the calling thread, or count 0 when it has none.
void next_chunk(Task& task, std::uint64_t& begin, std::uint64_t& count, std::uint64_t site) {
  DispatchedLoop& loop = task.loop;
  const std::uint64_t trip = loop.shared->trip;
  const int threads = team_size(task);
  count = 0;
  if (loop.kind == kStatic) {
    if (loop.chunk == 0) {
      if (!loop.static_done) static_block(trip, threads, task.thread_num, begin, count);
      loop.static_done = true;
    } else if (loop.static_next < trip) {
      begin = loop.static_next;
      count = std::min(loop.chunk, trip - begin);
      loop.static_next += loop.chunk * static_cast<std::uint64_t>(threads);
    }
    return;
  }
  if (!alone(task)) omp::lock_construct(task, *loop.shared, site);
  begin = loop.shared->next;
  const std::uint64_t remaining = trip - begin;
  if (remaining > 0) {
    count = loop.chunk;
    if (loop.kind == kGuided) {
      // A share of what is left for each thread, never below the chunk size.
      const std::uint64_t share = (remaining + threads - 1) / static_cast<std::uint64_t>(threads);
      count = std::max(count, share);
    }
    count = std::min(count, remaining);
    loop.shared->next += count;
  }
  if (!alone(task)) omp::unlock_construct(task, *loop.shared, site);
}

template <typename T, typename S>
std::int32_t dispatch_next(std::int32_t* last, T* lower, T* upper, S* stride, std::uint64_t site) {
  EntryScope scope;
  Task& task = current_task();
  DispatchedLoop& loop = task.loop;
  if (!loop.shared) not_modelled("__kmpc_dispatch_next without __kmpc_dispatch_init");
  std::uint64_t begin = 0;
  std::uint64_t count = 0;
  next_chunk(task, begin, count, site);
  if (count == 0) {
    omp::leave_construct(task, *loop.shared);
    loop.shared = nullptr;
    return 0;
  }
  const T first = static_cast<T>(loop.lower);
  const S incr = static_cast<S>(loop.incr);
  *lower = value_at(first, incr, begin);
  *upper = value_at(first, incr, begin + count - 1);
  *stride = incr;
  if (last) *last = begin + count == loop.shared->trip;
  loop.current = begin;
  loop.chunk_end = begin + count;
  loop.ordered_passed = false;
  return 1;
}

// Lets the current iteration's ordered turn pass: waits for it, then hands it on.
void pass_ordered_turn(Task& task, std::uint64_t site) {
  DispatchedLoop& loop = task.loop;
  if (alone(task)) return;
  omp::lock_construct(task, *loop.shared, site);
  while (loop.shared->ordered_next != loop.current) omp::wait_construct(task, *loop.shared, site);
  omp::unlock_construct(task, *loop.shared, site);
}

void end_ordered_turn(Task& task, std::uint64_t site) {
  DispatchedLoop& loop = task.loop;
  loop.ordered_passed = true;
  if (alone(task)) return;
  omp::lock_construct(task, *loop.shared, site);
  loop.shared->ordered_next = loop.current + 1;
  omp::broadcast_construct(task, *loop.shared, site);
  omp::unlock_construct(task, *loop.shared, site);
}

// The end of one iteration of an ordered loop: an iteration that ran no ordered region still
// takes its turn, so that the next one's can come.
void dispatch_fini(std::uint64_t site) {
  EntryScope scope;
  Task& task = current_task();
  DispatchedLoop& loop = task.loop;
  if (!loop.shared || !loop.ordered) return;
  if (!loop.ordered_passed) {
    pass_ordered_turn(task, site);
    end_ordered_turn(task, site);
  }
  ++loop.current;
  loop.ordered_passed = false;
}

}  // namespace

extern "C" {

void __kmpc_for_static_init_4(Ident*, std::int32_t, std::int32_t schedule, std::int32_t* last,
                              std::int32_t* lower, std::int32_t* upper, std::int32_t* stride,
                              std::int32_t incr, std::int32_t chunk) {
  static_init(schedule, last, lower, upper, stride, incr, chunk);
}
void __kmpc_for_static_init_4u(Ident*, std::int32_t, std::int32_t schedule, std::int32_t* last,
                               std::uint32_t* lower, std::uint32_t* upper, std::int32_t* stride,
                               std::int32_t incr, std::int32_t chunk) {
  static_init(schedule, last, lower, upper, stride, incr, chunk);
}
void __kmpc_for_static_init_8(Ident*, std::int32_t, std::int32_t schedule, std::int32_t* last,
                              std::int64_t* lower, std::int64_t* upper, std::int64_t* stride,
                              std::int64_t incr, std::int64_t chunk) {
  static_init(schedule, last, lower, upper, stride, incr, chunk);
}
void __kmpc_for_static_init_8u(Ident*, std::int32_t, std::int32_t schedule, std::int32_t* last,
                               std::uint64_t* lower, std::uint64_t* upper, std::int64_t* stride,
                               std::int64_t incr, std::int64_t chunk) {
  static_init(schedule, last, lower, upper, stride, incr, chunk);
}

// The barrier after a loop without nowait is a separate __kmpc_barrier call.
void __kmpc_for_static_fini(Ident*, std::int32_t) {}

void __kmpc_dispatch_init_4(Ident*, std::int32_t, std::int32_t schedule, std::int32_t lower,
                            std::int32_t upper, std::int32_t incr, std::int32_t chunk) {
  dispatch_init(schedule, lower, upper, incr, chunk);
}
void __kmpc_dispatch_init_4u(Ident*, std::int32_t, std::int32_t schedule, std::uint32_t lower,
                             std::uint32_t upper, std::int32_t incr, std::int32_t chunk) {
  dispatch_init(schedule, lower, upper, incr, chunk);
}
void __kmpc_dispatch_init_8(Ident*, std::int32_t, std::int32_t schedule, std::int64_t lower,
                            std::int64_t upper, std::int64_t incr, std::int64_t chunk) {
  dispatch_init(schedule, lower, upper, incr, chunk);
}
void __kmpc_dispatch_init_8u(Ident*, std::int32_t, std::int32_t schedule, std::uint64_t lower,
                             std::uint64_t upper, std::int64_t incr, std::int64_t chunk) {
  dispatch_init(schedule, lower, upper, incr, chunk);
}

std::int32_t __kmpc_dispatch_next_4(Ident*, std::int32_t, std::int32_t* last, std::int32_t* lower,
                                    std::int32_t* upper, std::int32_t* stride) {
  return dispatch_next(last, lower, upper, stride, WEFT_CALLER_SITE());
}
std::int32_t __kmpc_dispatch_next_4u(Ident*, std::int32_t, std::int32_t* last, std::uint32_t* lower,
                                     std::uint32_t* upper, std::int32_t* stride) {
  return dispatch_next(last, lower, upper, stride, WEFT_CALLER_SITE());
}
std::int32_t __kmpc_dispatch_next_8(Ident*, std::int32_t, std::int32_t* last, std::int64_t* lower,
                                    std::int64_t* upper, std::int64_t* stride) {
  return dispatch_next(last, lower, upper, stride, WEFT_CALLER_SITE());
}
std::int32_t __kmpc_dispatch_next_8u(Ident*, std::int32_t, std::int32_t* last, std::uint64_t* lower,
                                     std::uint64_t* upper, std::int64_t* stride) {
  return dispatch_next(last, lower, upper, stride, WEFT_CALLER_SITE());
}

void __kmpc_dispatch_fini_4(Ident*, std::int32_t) {
  dispatch_fini(WEFT_CALLER_SITE());
}
void __kmpc_dispatch_fini_4u(Ident*, std::int32_t) {
  dispatch_fini(WEFT_CALLER_SITE());
}
void __kmpc_dispatch_fini_8(Ident*, std::int32_t) {
  dispatch_fini(WEFT_CALLER_SITE());
}
void __kmpc_dispatch_fini_8u(Ident*, std::int32_t) {
  dispatch_fini(WEFT_CALLER_SITE());
}

void __kmpc_ordered(Ident*, std::int32_t) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  Task& task = current_task();
  if (!task.loop.shared || !task.loop.ordered)
    not_modelled("__kmpc_ordered outside an ordered loop");
  pass_ordered_turn(task, site);
}

void __kmpc_end_ordered(Ident*, std::int32_t) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  Task& task = current_task();
  if (!task.loop.shared || !task.loop.ordered)
    not_modelled("__kmpc_end_ordered outside an ordered loop");
  end_ordered_turn(task, site);
}

}  // extern "C"
