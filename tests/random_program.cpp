#include "random_program.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <random>

#include "weft/weft.hpp"

namespace weft::testing {

std::string Program::describe() const {
  std::string s = std::to_string(vars) + " variables, " + std::to_string(mutexes) + " mutexes";
  for (std::size_t k = 0; k < semaphores.size(); ++k)
    s += ", semaphore s" + std::to_string(k) + " = " + std::to_string(semaphores[k]);
  if (condition_variable) s += ", condition variable c";
  for (std::size_t k = 0; k < channels.size(); ++k)
    s += ", channel ch" + std::to_string(k) + " of capacity " + std::to_string(channels[k]);
  s += "\n";
  for (std::size_t t = 0; t < threads.size(); ++t) {
    s += "thread " + std::to_string(t) + ":";
    for (const auto& i : threads[t]) {
      switch (i.kind) {
        case Instr::kRead:
          s += " r=x" + std::to_string(i.var) + ";";
          break;
        case Instr::kWrite:
          s += " x" + std::to_string(i.var) + "=r+" + std::to_string(i.value) + ";";
          break;
        case Instr::kLock:
          s += " lock(m" + std::to_string(i.mutex) + ");";
          break;
        case Instr::kUnlock:
          s += " unlock(m" + std::to_string(i.mutex) + ");";
          break;
        case Instr::kAssertNot:
          s += " assert(r!=" + std::to_string(i.value) + ");";
          break;
        case Instr::kSemWait:
          s += " wait(s" + std::to_string(i.var) + ");";
          break;
        case Instr::kSemPost:
          s += " post(s" + std::to_string(i.var) + ");";
          break;
        case Instr::kCondWait:
          s += " lock(m" + std::to_string(i.mutex) + "); wait(c); unlock(m" +
               std::to_string(i.mutex) + ");";
          break;
        case Instr::kCondSignal:
          s += " signal(c);";
          break;
        case Instr::kCondBroadcast:
          s += " broadcast(c);";
          break;
        case Instr::kSend:
          s += " send(ch" + std::to_string(i.var) + ", " + std::to_string(i.value) + ");";
          break;
        case Instr::kReceive:
          s += " r=receive(ch" + std::to_string(i.var) + ");";
          break;
        case Instr::kSelect:
          s += " r=select(open " + std::to_string(i.value) + ");";
          break;
        case Instr::kClose:
          s += " close(ch" + std::to_string(i.var) + ");";
          break;
      }
    }
    s += "\n";
  }
  return s;
}

namespace {

// Upper bound on interleavings: the multinomial of the threads' operation counts, with the main
// thread's creates and joins.
double interleaving_bound(const Program& p) {
  std::vector<int> counts;
  counts.push_back(2 * static_cast<int>(p.threads.size()));
  for (const auto& t : p.threads) {
    int visible = 0;
    for (const auto& i : t) visible += i.kind != Instr::kAssertNot;
    counts.push_back(visible);
  }
  double log_bound = 0;
  int total = 0;
  for (int c : counts) {
    total += c;
    log_bound += std::lgamma(total + 1) - std::lgamma(total - c + 1) - std::lgamma(c + 1);
  }
  return std::exp(log_bound);
}

Program draw(std::mt19937_64& rng) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.vars = uniform(1, 3);
  p.mutexes = uniform(0, 2);
  const int n = uniform(2, 4);
  for (int t = 0; t < n; ++t) {
    std::vector<Instr> code;
    std::vector<int> held;
    const int length = uniform(1, 6);
    int visible = 0;
    while (visible < length) {
      const int roll = uniform(0, 9);
      Instr in{};
      if (roll <= 2) {
        in.kind = Instr::kRead;
        in.var = uniform(0, p.vars - 1);
      } else if (roll <= 5) {
        in.kind = Instr::kWrite;
        in.var = uniform(0, p.vars - 1);
        in.value = uniform(0, 2);
      } else if (roll <= 7 && p.mutexes > 0) {
        const int m = uniform(0, p.mutexes - 1);
        if (std::find(held.begin(), held.end(), m) != held.end()) continue;
        in.kind = Instr::kLock;
        in.mutex = m;
        held.push_back(m);
      } else if (roll == 8 && !held.empty()) {
        in.kind = Instr::kUnlock;
        in.mutex = held.back();
        held.pop_back();
      } else if (roll == 9) {
        in.kind = Instr::kAssertNot;
        in.value = uniform(0, 3);
        code.push_back(in);
        continue;
      } else {
        continue;
      }
      code.push_back(in);
      ++visible;
    }
    // Usually release what is still held; sometimes end holding it (others may then deadlock).
    if (uniform(0, 9) != 0) {
      while (!held.empty()) {
        code.push_back(Instr{Instr::kUnlock, 0, held.back(), 0});
        held.pop_back();
      }
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

}  // namespace

Program generate_program(std::uint64_t seed, double max_interleavings) {
  std::mt19937_64 rng(seed);
  while (true) {
    Program p = draw(rng);
    if (interleaving_bound(p) <= max_interleavings) return p;
  }
}

Program generate_lock_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.vars = 1;
  p.mutexes = uniform(2, 4);
  const int n = uniform(3, 5);
  for (int t = 0; t < n; ++t) {
    std::vector<Instr> code;
    const int sections = uniform(1, 3);
    for (int s = 0; s < sections; ++s) {
      const int outer = uniform(0, p.mutexes - 1);
      int inner = uniform(-1, p.mutexes - 1);  // -1 or equal to outer: a single lock
      if (inner == outer) inner = -1;
      code.push_back(Instr{Instr::kLock, 0, outer, 0});
      if (inner >= 0) code.push_back(Instr{Instr::kLock, 0, inner, 0});
      if (uniform(0, 3) == 0) {
        code.push_back(Instr{Instr::kRead, 0, 0, 0});
        code.push_back(Instr{Instr::kWrite, 0, 0, 1});
      }
      if (inner >= 0) code.push_back(Instr{Instr::kUnlock, 0, inner, 0});
      code.push_back(Instr{Instr::kUnlock, 0, outer, 0});
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

Program generate_disciplined_program(std::uint64_t seed, bool deadlocks) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.vars = uniform(1, 3);
  p.mutexes = uniform(1, 3);
  std::vector<int> guard;
  for (int v = 0; v < p.vars; ++v) guard.push_back(uniform(0, p.mutexes - 1));
  const int n = uniform(2, 4);
  for (int t = 0; t < n; ++t) {
    std::vector<Instr> code;
    for (int sections = uniform(1, n == 4 ? 2 : 3); sections > 0; --sections) {
      int outer = uniform(0, p.mutexes - 1);
      int inner = p.mutexes > 1 && uniform(0, 2) == 0 ? uniform(0, p.mutexes - 1) : -1;
      if (inner == outer) inner = -1;
      if (inner >= 0 && !deadlocks && inner < outer) std::swap(inner, outer);
      code.push_back(Instr{Instr::kLock, 0, outer, 0});
      if (inner >= 0) code.push_back(Instr{Instr::kLock, 0, inner, 0});
      for (int accesses = uniform(1, 2); accesses > 0; --accesses) {
        const int v = uniform(0, p.vars - 1);
        if (guard[v] != outer && guard[v] != inner) continue;
        const int roll = uniform(0, 3);
        if (roll == 0) {
          code.push_back(Instr{Instr::kRead, v, 0, 0});
          code.push_back(Instr{Instr::kAssertNot, 0, 0, uniform(1, 3)});
        } else if (roll == 1) {
          code.push_back(Instr{Instr::kRead, v, 0, 0});
        } else {
          code.push_back(Instr{Instr::kWrite, v, 0, uniform(0, 2)});
        }
      }
      if (inner >= 0) code.push_back(Instr{Instr::kUnlock, 0, inner, 0});
      code.push_back(Instr{Instr::kUnlock, 0, outer, 0});
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

Program generate_blocking_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.vars = 1;
  for (int k = uniform(1, 2); k > 0; --k) p.semaphores.push_back(uniform(0, 1));
  p.condition_variable = uniform(0, 1) == 1;
  p.mutexes = p.condition_variable ? 1 : 0;
  const int sems = static_cast<int>(p.semaphores.size());
  const int n = uniform(2, 3);
  for (int t = 0; t < n; ++t) {
    std::vector<Instr> code;
    for (int length = uniform(1, 4); length > 0; --length) {
      const int roll = uniform(0, 9);
      if (roll <= 2) {
        code.push_back(Instr{Instr::kSemWait, uniform(0, sems - 1), 0, 0});
      } else if (roll <= 5) {
        code.push_back(Instr{Instr::kSemPost, uniform(0, sems - 1), 0, 0});
      } else if (roll == 6 && p.condition_variable) {
        code.push_back(Instr{Instr::kCondWait, 0, 0, 0});
      } else if (roll == 7 && p.condition_variable) {
        code.push_back(Instr{uniform(0, 2) ? Instr::kCondSignal : Instr::kCondBroadcast, 0, 0, 0});
      } else if (roll == 8) {
        code.push_back(Instr{Instr::kRead, 0, 0, 0});
      } else {
        code.push_back(Instr{Instr::kWrite, 0, 0, uniform(0, 2)});
      }
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

Program generate_channel_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Program p;
  p.vars = 1;
  for (int k = uniform(1, 2); k > 0; --k) p.channels.push_back(uniform(0, 2));
  const int channels = static_cast<int>(p.channels.size());
  const int n = uniform(2, 3);
  int next_value = 1;
  for (int t = 0; t < n; ++t) {
    std::vector<Instr> code;
    for (int length = uniform(1, 4); length > 0; --length) {
      const int roll = uniform(0, 11);
      if (roll <= 3) {
        code.push_back(Instr{Instr::kSend, uniform(0, channels - 1), 0, next_value++});
      } else if (roll <= 6) {
        code.push_back(Instr{Instr::kReceive, uniform(0, channels - 1), 0, 0});
      } else if (roll == 7 && channels > 1) {
        code.push_back(Instr{Instr::kSelect, 0, 0, uniform(1, (1 << channels) - 1)});
      } else if (roll == 8) {
        code.push_back(Instr{Instr::kClose, uniform(0, channels - 1), 0, 0});
      } else if (roll == 9) {
        code.push_back(Instr{Instr::kRead, 0, 0, 0});
      } else {
        code.push_back(Instr{Instr::kWrite, 0, 0, uniform(0, 2)});
      }
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

namespace {

// A thread running `body` that starts at code of its own for each `Kind` (a lambda of each
// specialisation is a type of its own): its kind for thread symmetry.
template <int Kind, class Body>
thread start_kind(const Body& body) {
  return thread([body] { body(); });
}

template <class Body>
thread start_as(int kind, const Body& body) {
  switch (kind) {
    case 0:
      return start_kind<0>(body);
    case 1:
      return start_kind<1>(body);
    case 2:
      return start_kind<2>(body);
    case 3:
      return start_kind<3>(body);
    case 4:
      return start_kind<4>(body);
    default:
      return start_kind<5>(body);
  }
}

}  // namespace

void run_program(const Program& p, Observed& out) {
  std::vector<std::unique_ptr<shared<int>>> vars;
  for (int v = 0; v < p.vars; ++v) vars.push_back(std::make_unique<shared<int>>(0));
  std::vector<std::unique_ptr<mutex>> mutexes;
  for (int m = 0; m < p.mutexes; ++m) mutexes.push_back(std::make_unique<mutex>());
  std::vector<std::unique_ptr<counting_semaphore<>>> semaphores;
  for (int initial : p.semaphores)
    semaphores.push_back(std::make_unique<counting_semaphore<>>(initial));
  std::unique_ptr<condition_variable> cv;
  if (p.condition_variable) cv = std::make_unique<condition_variable>();
  std::vector<std::unique_ptr<channel<int>>> channels;
  for (int capacity : p.channels)
    channels.push_back(std::make_unique<channel<int>>(static_cast<std::size_t>(capacity)));
  std::vector<int> last(p.threads.size(), 0);
  std::vector<thread> threads;
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    const int kind = t < p.kinds.size() ? p.kinds[t] : static_cast<int>(t);
    threads.push_back(start_as(kind, [&, t] {
      int r = 0;
      for (std::size_t k = 0; k < p.threads[t].size(); ++k) {
        out.local_states.insert({static_cast<int>(t), static_cast<int>(k), r});
        const Instr& in = p.threads[t][k];
        switch (in.kind) {
          case Instr::kRead:
            r = *vars[in.var];
            break;
          case Instr::kWrite:
            *vars[in.var] = r + in.value;
            break;
          case Instr::kLock:
            mutexes[in.mutex]->lock();
            break;
          case Instr::kUnlock:
            mutexes[in.mutex]->unlock();
            break;
          case Instr::kAssertNot:
            if (r == in.value)
              detail::scheduler("test").fail(
                  Outcome::kAssertionFailure,
                  "assert in thread " + std::to_string(t) + " at " + std::to_string(k));
            break;
          case Instr::kSemWait:
            semaphores[in.var]->acquire();
            break;
          case Instr::kSemPost:
            semaphores[in.var]->release();
            break;
          case Instr::kCondWait: {
            std::unique_lock<mutex> lock(*mutexes[in.mutex]);
            cv->wait(lock);
            break;
          }
          case Instr::kCondSignal:
            cv->notify_one();
            break;
          case Instr::kCondBroadcast:
            cv->notify_all();
            break;
          case Instr::kSend:
            channels[in.var]->send(in.value);
            break;
          case Instr::kReceive:
            r = channels[in.var]->receive().value_or(-1);
            break;
          case Instr::kSelect: {
            const auto open = [&](int k) { return ((in.value >> k) & 1) != 0; };
            const auto take = [&](int v) { r = v; };
            if (channels.size() == 1) {
              select(when(open(0), *channels[0], take));
            } else {
              select(when(open(0), *channels[0], take), when(open(1), *channels[1], take));
            }
            break;
          }
          case Instr::kClose:
            channels[in.var]->close();
            break;
        }
      }
      last[t] = r;
      out.local_states.insert({static_cast<int>(t), static_cast<int>(p.threads[t].size()), r});
    }));
  }
  for (auto& t : threads) t.join();
  std::vector<int> state;
  for (auto& v : vars) state.push_back(*v);
  state.insert(state.end(), last.begin(), last.end());
  out.final_states.insert(std::move(state));
}

ProgramRun explore_program(const Program& p, Options options) {
  ProgramRun r;
  options.stop_on_first_bug = false;
  r.result = explore(options, [&] { run_program(p, r.observed); });
  for (const auto& b : r.result.bugs) r.observed.bugs.insert(b.message);
  return r;
}

}  // namespace weft::testing
