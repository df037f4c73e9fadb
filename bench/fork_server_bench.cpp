// Out-of-process speed (issue 3's benchmark): executions per second of programs built by
// weft-cc, run in the persistent worker (the default) and with a fresh process per execution
// (--fresh-process), against the same programs through the in-process API; and the fixed cost
// per execution of both (a program with no threads). Each row is one run, so its ratios are
// taken on equal terms.
// Run: ./build/bench/bench_fork_server [repetitions]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

Measured explore_native(const std::string& program, const char* points, bool fresh) {
  weft::driver::Program p;
  p.path = program;
  p.options.points = points;
  p.options.fresh_process = fresh;
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

double rate(const Measured& m) {
  return m.executions / m.seconds;
}

void row(const char* name, const std::string& program, const char* points,
         const std::function<void()>& in_process_program) {
  const Measured worker = explore_native(program, points, false);
  const Measured fresh = explore_native(program, points, true);
  const Measured in_process = explore_in_process(in_process_program);
  std::printf("%-28s %8llu %10.0f %10.0f %10.0f %11.1fx %11.1fx\n", name,
              static_cast<unsigned long long>(worker.executions), rate(worker), rate(fresh),
              rate(in_process), rate(worker) / rate(fresh), rate(in_process) / rate(worker));
}

// Microseconds per execution of the empty program through a fork server.
double empty_program(const std::string& dir, bool fresh, int n) {
  weft::driver::Program p;
  p.path = dir + "/empty";
  p.options.fresh_process = fresh;
  weft::ThreadRegistry threads;
  weft::driver::ForkServer server(p, threads);
  const auto start = Clock::now();
  for (int i = 0; i < n; ++i) server.run(weft::TestDirective{});
  return seconds_since(start) / n * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 1;
  const std::string dir = WEFT_BENCH_PROGRAMS;
  for (int rep = 0; rep < repetitions; ++rep) {
    // The fixed cost: one execution of a program without threads, many times.
    {
      const int n = 2000;
      const double worker = empty_program(dir, false, n);
      const double fresh = empty_program(dir, true, n);
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
          "empty program, us per execution: worker %.1f, fresh process %.1f, in-process %.1f "
          "(a bare fork+exit+wait: %.1f)\n",
          worker, fresh, in_per * 1e6, fork_per * 1e6);
    }
    std::printf("%-28s %8s %10s %10s %10s %12s %12s\n", "program (optimal DPOR)", "execs",
                "worker/s", "fresh/s", "in-proc/s", "worker/fresh", "in-proc/wkr");
    row("locked counter, 5 threads", dir + "/locked_counter", "sync", [] { locked_counter(5); });
    row("8 readers + writer (all)", dir + "/readers_writer", "all", [] { readers_writer(8); });
  }
}
