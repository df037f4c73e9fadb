#include "programs.hpp"

#include <algorithm>
#include <deque>
#include <memory>

#include "weft/weft.hpp"

namespace weft::richtest {
namespace {

constexpr int kProducers = 3, kConsumers = 3, kSlots = 2;
constexpr int kReaders = 3, kWriters = 2;

// Starts `count` threads running `body(i)`, i from 0, beside `threads`. Threads of one call start
// at the same code (one lambda type): of one kind for thread symmetry (--symmetry).
template <class Body>
void start_threads(std::vector<thread>& threads, int count, const Body& body) {
  for (int i = 0; i < count; ++i) threads.emplace_back([body, i] { body(i); });
}

// Starts `count` threads running `body(i)` and joins them.
template <class Body>
void run_threads(int count, Body body) {
  std::vector<thread> threads;
  start_threads(threads, count, body);
  for (thread& t : threads) t.join();
}

// Producers and consumers of one item each around `deposit` and `withdraw`.
template <class Deposit, class Withdraw>
void producers_and_consumers(Deposit deposit, Withdraw withdraw) {
  std::vector<thread> threads;
  start_threads(threads, kProducers, [&](int i) { deposit(i + 1); });
  start_threads(threads, kConsumers, [&](int i) { WEFT_ASSERT(withdraw(i) > 0); });
  for (thread& t : threads) t.join();
}

// Readers and writers of one access each around the four entry points; every access checks the
// exclusion the protocol promises.
template <class StartRead, class EndRead, class StartWrite, class EndWrite>
void readers_and_writers(StartRead start_read, EndRead end_read, StartWrite start_write,
                         EndWrite end_write) {
  int reading = 0, writing = 0;  // only for the checks: each is touched inside the protocol
  std::vector<thread> threads;
  start_threads(threads, kReaders, [&](int) {
    start_read();
    ++reading;
    WEFT_ASSERT(writing == 0);
    --reading;
    end_read();
  });
  start_threads(threads, kWriters, [&](int) {
    start_write();
    ++writing;
    WEFT_ASSERT(writing == 1 && reading == 0);
    --writing;
    end_write();
  });
  for (thread& t : threads) t.join();
}

// A bounded buffer as a monitor (Carver and Tai, §4): SU may test once, SC must test again.
void bounded_buffer_monitor(monitor::discipline d) {
  monitor m(d);
  monitor::condition not_full(m), not_empty(m);
  std::deque<int> items;
  const bool recheck = d == monitor::discipline::signal_and_continue;
  producers_and_consumers(
      [&](int v) {
        monitor::method in(m);
        while (items.size() == kSlots) {
          not_full.wait();
          if (!recheck) break;
        }
        items.push_back(v);
        not_empty.signal();
      },
      [&](int) {
        monitor::method in(m);
        while (items.empty()) {
          not_empty.wait();
          if (!recheck) break;
        }
        const int v = items.front();
        items.pop_front();
        not_full.signal();
        return v;
      });
}

}  // namespace

void bounded_buffer_select() {
  // A server task with a selective wait: deposits while there is room, withdrawals (a request,
  // then the item on the consumer's own reply channel) while there is an item.
  channel<int> deposit(0), withdraw(0);
  std::vector<std::unique_ptr<channel<int>>> reply;
  for (int c = 0; c < kConsumers; ++c) reply.push_back(std::make_unique<channel<int>>(0));
  thread server([&] {
    std::deque<int> items;
    for (int served = 0; served < kProducers + kConsumers; ++served)
      select(when(items.size() < kSlots, deposit, [&](int v) { items.push_back(v); }),
             when(!items.empty(), withdraw, [&](int consumer) {
               reply[static_cast<std::size_t>(consumer)]->send(items.front());
               items.pop_front();
             }));
  });
  producers_and_consumers([&](int v) { deposit.send(v); },
                          [&](int me) {
                            withdraw.send(me);
                            return *reply[static_cast<std::size_t>(me)]->receive();
                          });
  server.join();
}

void bounded_buffer_semaphores() {
  counting_semaphore<> empty_slots(kSlots), full_slots(0);
  binary_semaphore deposit_lock(1), withdraw_lock(1);
  int slots[kSlots] = {};
  int in = 0, out = 0;
  producers_and_consumers(
      [&](int v) {
        empty_slots.acquire();
        deposit_lock.acquire();
        slots[in] = v;
        in = (in + 1) % kSlots;
        deposit_lock.release();
        full_slots.release();
      },
      [&](int) {
        full_slots.acquire();
        withdraw_lock.acquire();
        const int v = slots[out];
        out = (out + 1) % kSlots;
        withdraw_lock.release();
        empty_slots.release();
        return v;
      });
}

void bounded_buffer_monitor_su() {
  bounded_buffer_monitor(monitor::discipline::signal_and_urgent_wait);
}

void bounded_buffer_monitor_sc() {
  bounded_buffer_monitor(monitor::discipline::signal_and_continue);
}

void readers_writers_select() {
  // A server task: readers start while no writer writes, a writer while nobody reads or writes.
  channel<int> start_read(0), end_read(0), start_write(0), end_write(0);
  thread server([&] {
    int readers = 0;
    bool writing = false;
    for (int served = 0; served < 2 * (kReaders + kWriters); ++served)
      select(when(!writing, start_read, [&](int) { ++readers; }),
             on(end_read, [&](int) { --readers; }),
             when(!writing && readers == 0, start_write, [&](int) { writing = true; }),
             on(end_write, [&](int) { writing = false; }));
  });
  readers_and_writers([&] { start_read.send(0); }, [&] { end_read.send(0); },
                      [&] { start_write.send(0); }, [&] { end_write.send(0); });
  server.join();
}

void readers_writers_semaphores() {
  // Readers first (Carver and Tai, §3): the first reader in locks writers out, the last one out
  // lets them in.
  int readers = 0;
  binary_semaphore count_lock(1), write_lock(1);
  readers_and_writers(
      [&] {
        count_lock.acquire();
        if (++readers == 1) write_lock.acquire();
        count_lock.release();
      },
      [&] {
        count_lock.acquire();
        if (--readers == 0) write_lock.release();
        count_lock.release();
      },
      [&] { write_lock.acquire(); }, [&] { write_lock.release(); });
}

void readers_writers_monitor_su() {
  // Hoare's monitor: a reader waits while a writer writes or waits; readers wake each other in a
  // cascade; a writer leaving prefers waiting readers.
  monitor m(monitor::discipline::signal_and_urgent_wait);
  monitor::condition ok_to_read(m), ok_to_write(m);
  int readers = 0;
  bool writing = false;
  readers_and_writers(
      [&] {
        monitor::method in(m);
        if (writing || !ok_to_write.empty()) ok_to_read.wait();
        ++readers;
        ok_to_read.signal();
      },
      [&] {
        monitor::method in(m);
        if (--readers == 0) ok_to_write.signal();
      },
      [&] {
        monitor::method in(m);
        if (readers != 0 || writing) ok_to_write.wait();
        writing = true;
      },
      [&] {
        monitor::method in(m);
        writing = false;
        if (!ok_to_read.empty())
          ok_to_read.signal();
        else
          ok_to_write.signal();
      });
}

void readers_writers_monitor_sc() {
  monitor m(monitor::discipline::signal_and_continue);
  monitor::condition ok_to_read(m), ok_to_write(m);
  int readers = 0, writers_waiting = 0;
  bool writing = false;
  readers_and_writers(
      [&] {
        monitor::method in(m);
        while (writing || writers_waiting > 0) ok_to_read.wait();
        ++readers;
      },
      [&] {
        monitor::method in(m);
        if (--readers == 0) ok_to_write.signal();
      },
      [&] {
        monitor::method in(m);
        ++writers_waiting;
        while (readers != 0 || writing) ok_to_write.wait();
        --writers_waiting;
        writing = true;
      },
      [&] {
        monitor::method in(m);
        writing = false;
        ok_to_write.signal();
        ok_to_read.signal_all();
      });
}

void dining_monitor_su(int n) {
  // Hoare's solution: a philosopher eats only when neither neighbour does; one that cannot waits
  // on its own condition, and a neighbour putting down its forks hands it the monitor.
  enum State { kThinking, kHungry, kEating };
  monitor m(monitor::discipline::signal_and_urgent_wait);
  std::vector<std::unique_ptr<monitor::condition>> self;
  std::vector<State> state(static_cast<std::size_t>(n), kThinking);
  for (int i = 0; i < n; ++i) self.push_back(std::make_unique<monitor::condition>(m));
  const auto at = [&](int k) -> State& { return state[static_cast<std::size_t>((k + n) % n)]; };
  const auto test = [&](int k) {
    if (at(k - 1) != kEating && at(k) == kHungry && at(k + 1) != kEating) {
      at(k) = kEating;
      self[static_cast<std::size_t>(k)]->signal();
    }
  };
  run_threads(n, [&](int i) {
    {
      monitor::method in(m);
      at(i) = kHungry;
      test(i);
      if (at(i) != kEating) self[static_cast<std::size_t>(i)]->wait();
      WEFT_ASSERT(at(i - 1) != kEating && at(i + 1) != kEating);
    }
    {
      monitor::method in(m);
      at(i) = kThinking;
      test((i + n - 1) % n);
      test((i + 1) % n);
    }
  });
}

void dining_deadlock(int n) {
  std::vector<std::unique_ptr<binary_semaphore>> forks;
  for (int i = 0; i < n; ++i) forks.push_back(std::make_unique<binary_semaphore>(1));
  run_threads(n, [&](int i) {
    binary_semaphore& left = *forks[static_cast<std::size_t>(i)];
    binary_semaphore& right = *forks[static_cast<std::size_t>((i + 1) % n)];
    left.acquire();
    right.acquire();
    right.release();
    left.release();
  });
}

void distributed_mutual_exclusion() {
  constexpr int kProcesses = 3;
  struct Request {
    int stamp, from;
  };
  struct Process {
    binary_semaphore lock{1};  // the two threads' shared state below
    int clock = 0, stamp = 0;
    bool requesting = false;
    bool deferred[kProcesses] = {};
    channel<Request> requests{kProcesses};
    channel<int> replies{kProcesses};
  };
  std::vector<std::unique_ptr<Process>> p;
  for (int i = 0; i < kProcesses; ++i) p.push_back(std::make_unique<Process>());
  int inside = 0;  // only for the check
  run_threads(2 * kProcesses, [&](int t) {
    const int i = t / 2;
    Process& me = *p[static_cast<std::size_t>(i)];
    if (t % 2 == 0) {  // enters the critical section once
      me.lock.acquire();
      me.requesting = true;
      me.stamp = ++me.clock;
      me.lock.release();
      for (int j = 0; j < kProcesses; ++j)
        if (j != i) p[static_cast<std::size_t>(j)]->requests.send({me.stamp, i});
      for (int k = 1; k < kProcesses; ++k) me.replies.receive();
      WEFT_ASSERT(++inside == 1);
      --inside;
      me.lock.acquire();
      me.requesting = false;
      for (int j = 0; j < kProcesses; ++j)
        if (me.deferred[j]) {
          me.deferred[j] = false;
          p[static_cast<std::size_t>(j)]->replies.send(i);
        }
      me.lock.release();
    } else {  // answers each other process's one request, now or once out of the section
      for (int k = 1; k < kProcesses; ++k) {
        const Request r = *me.requests.receive();
        me.lock.acquire();
        me.clock = std::max(me.clock, r.stamp) + 1;
        const bool first = me.stamp < r.stamp || (me.stamp == r.stamp && i < r.from);
        if (me.requesting && first)
          me.deferred[r.from] = true;
        else
          p[static_cast<std::size_t>(r.from)]->replies.send(i);
        me.lock.release();
      }
    }
  });
}

std::vector<Program> programs() {
  return {
      {"BB-select", 144, bounded_buffer_select},
      {"BB-semaphore", 324, bounded_buffer_semaphores},
      {"BB-monitorSU", 720, bounded_buffer_monitor_su},
      {"BB-monitorSC", 12096, bounded_buffer_monitor_sc},
      {"RW-select", 768, readers_writers_select},
      {"RW-semaphore", 21744, readers_writers_semaphores},
      {"RW-monitorSU", 13320, readers_writers_monitor_su},
      {"RW-monitorSC", 61716, readers_writers_monitor_sc},
      {"DP-monitorSU (3P)", 30, [] { dining_monitor_su(3); }},
      {"DP-monitorSU (4P)", 624, [] { dining_monitor_su(4); }},
      {"DP-monitorSU (5P)", 19330, [] { dining_monitor_su(5); }},
      {"DME", 4032, distributed_mutual_exclusion},
      {"DP-deadlock (3P)", 0, [] { dining_deadlock(3); }, true},
      {"DP-deadlock (5P)", 0, [] { dining_deadlock(5); }, true},
      {"DP-deadlock (9P)", 0, [] { dining_deadlock(9); }, true},
  };
}

}  // namespace weft::richtest
