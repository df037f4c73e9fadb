// Out-of-process speed (issue 3's benchmark): executions per second of programs built by
// weft-cc and run through the fork server, against the same programs through the in-process
// API, and the fork server's fixed cost per execution (a program with no threads).
// Run: ./build/bench/bench_fork_server [repetitions]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "weft/driver/native_runner.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/weft.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Measured {
  std::uint64_t executions = 0;
  double seconds = 0;
};

Measured explore_native(const std::string& program, const char* points) {
  weft::driver::Program p;
  p.path = program;
  p.options.points = points;
  weft::ThreadRegistry threads;
  weft::driver::ForkServer server(p, threads);
  weft::explorer::StrategyConfig config;
  auto strategy = weft::explorer::make_strategy(config);
  weft::explorer::ExplorationLimits limits;
  limits.stop_on_first_bug = false;
  const auto start = Clock::now();
  const auto r = weft::explorer::run_exploration(
      *strategy, weft::ReadPolicy::kReadsCommute,
      [&](const weft::TestDirective& d) { return server.run(d); }, limits);
  return {r.stats.executions, seconds_since(start)};
}

Measured explore_in_process(const std::function<void()>& program) {
  weft::Options o;
  o.stop_on_first_bug = false;
  const auto start = Clock::now();
  const auto r = weft::explore(o, program);
  return {r.stats.executions, seconds_since(start)};
}

void locked_counter(int n) {
  weft::mutex lock;
  int counter = 0;
  std::vector<weft::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&] {
      lock.lock();
      counter = counter + 1;
      lock.unlock();
    });
  for (auto& t : threads) t.join();
}

void readers_writer(int readers) {
  weft::shared<int> value{0};
  std::vector<weft::thread> threads;
  threads.emplace_back([&] { value = 1; });
  for (int i = 0; i < readers; ++i) threads.emplace_back([&] { (void)static_cast<int>(value); });
  for (auto& t : threads) t.join();
}

void row(const char* name, Measured native, Measured in_process) {
  const double out_rate = native.executions / native.seconds;
  const double in_rate = in_process.executions / in_process.seconds;
  std::printf(
      "%-28s %8llu %12.0f %12.0f %9.1fx %10.1f\n", name,
      static_cast<unsigned long long>(native.executions), out_rate, in_rate, in_rate / out_rate,
      1e6 * (native.seconds / native.executions - in_process.seconds / in_process.executions));
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 1;
  const std::string dir = WEFT_BENCH_PROGRAMS;
  for (int rep = 0; rep < repetitions; ++rep) {
    // The fixed cost: one execution of a program without threads, many times.
    {
      weft::driver::Program p;
      p.path = dir + "/empty";
      weft::ThreadRegistry threads;
      weft::driver::ForkServer server(p, threads);
      const int n = 2000;
      const auto start = Clock::now();
      for (int i = 0; i < n; ++i) server.run(weft::TestDirective{});
      const double per = seconds_since(start) / n;
      const auto in_start = Clock::now();
      for (int i = 0; i < n; ++i) weft::explore(weft::Options{}, [] {});
      const double in_per = seconds_since(in_start) / n;
      // The floor: what fork, exit and wait cost on this machine, for this (small) process.
      const auto fork_start = Clock::now();
      for (int i = 0; i < n; ++i) {
        const pid_t pid = fork();
        if (pid == 0) _exit(0);
        int status;
        waitpid(pid, &status, 0);
      }
      const double fork_per = seconds_since(fork_start) / n;
      std::printf(
          "fork server: %.1f us per execution of an empty program; in-process %.1f us; "
          "overhead %.1f us, of which a bare fork+exit+wait is %.1f us\n",
          per * 1e6, in_per * 1e6, (per - in_per) * 1e6, fork_per * 1e6);
    }
    std::printf("%-28s %8s %12s %12s %10s %10s\n", "program (optimal DPOR)", "execs",
                "out-of-proc/s", "in-proc/s", "ratio", "extra us");
    row("locked counter, 5 threads", explore_native(dir + "/locked_counter", "sync"),
        explore_in_process([] { locked_counter(5); }));
    row("8 readers + writer (all)", explore_native(dir + "/readers_writer", "all"),
        explore_in_process([] { readers_writer(8); }));
  }
}
