// In-process exploration speed (issue 2's benchmark). Prints executions per second for
//  (i)  4 threads x 5 mutex-protected increments (first 20,000 executions: the full space has
//       20!/(5!^4) ~ 1.2e10 traces), and
//  (ii) 12 readers and one writer of one variable (all 4,096 traces), whole exploration timed.
// Run: ./build/bench/bench_inprocess [repetitions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "weft/weft.hpp"

namespace {

void increments() {
  weft::mutex m;
  weft::shared<int> counter{0};
  std::vector<weft::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        std::lock_guard<weft::mutex> g(m);
        counter = counter + 1;
      }
    });
  for (auto& t : threads) t.join();
  WEFT_ASSERT(counter == 20);
}

void readers_writer() {
  weft::shared<int> x{0};
  std::vector<weft::thread> threads;
  for (int t = 0; t < 12; ++t) threads.emplace_back([&] { int v = x; (void)v; });
  threads.emplace_back([&] { x = 1; });
  for (auto& t : threads) t.join();
}

void report(const char* name, const weft::Result& r, double wall) {
  std::printf("%-34s %8llu executions %6llu traces %8.3f s  %9.0f executions/s\n", name,
              static_cast<unsigned long long>(r.stats.executions),
              static_cast<unsigned long long>(r.stats.traces), wall,
              r.stats.executions / wall);
}

template <class F>
void measure(const char* name, const weft::Options& o, F test) {
  const auto start = std::chrono::steady_clock::now();
  const weft::Result r = weft::explore(o, test);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(name, r, wall);
  if (!r.ok()) std::printf("unexpected bug: %s\n", r.bugs[0].message.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  for (int rep = 0; rep < reps; ++rep) {
    weft::Options i;
    i.max_executions = 20000;
    i.count_traces = false;
    measure("(i) 4x5 locked increments, optimal", i, increments);
    i.strategy = weft::StrategyKind::kDfs;
    measure("(i) 4x5 locked increments, dfs", i, increments);
    weft::Options ii;
    measure("(ii) 12 readers + writer, optimal", ii, readers_writer);
    ii.strategy = weft::StrategyKind::kDporCommutingReads;
    measure("(ii) 12 readers + writer, dpor-cr", ii, readers_writer);
  }
}
