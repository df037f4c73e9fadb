// Lei and Carver's programs (programs.hpp) under weft's strategies: per program and strategy the
// executions, those cut short (reachability testing's partial runs, other strategies'
// sleep-set blocked ones), the distinct traces (Mazurkiewicz, under weft's dependence), the time
// and the verdict, beside the sequences RichTest exercised (Table 4). The counts differ by
// design where the models differ; docs/richtest.md explains each.
//
//   bench_richtest [--strategy NAME]... [--pv-reduction] [--symmetry] [--time-limit S]
//                  [NAME-PREFIX...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "programs.hpp"
#include "weft/weft.hpp"

int main(int argc, char** argv) {
  std::vector<weft::StrategyKind> strategies;
  std::vector<std::string> only;
  double time_limit = 600;
  bool pv_reduction = false, symmetry = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--strategy" && i + 1 < argc) {
      strategies.push_back(weft::StrategyKind{argv[++i]});
    } else if (a == "--pv-reduction") {
      pv_reduction = true;
    } else if (a == "--symmetry") {
      symmetry = true;
    } else if (a == "--time-limit" && i + 1 < argc) {
      time_limit = std::atof(argv[++i]);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "bench_richtest: unknown option %s\n", a.c_str());
      return 2;
    } else {
      only.push_back(a);
    }
  }
  if (strategies.empty()) strategies = {weft::StrategyKind::kOptimalDpor};
  std::printf(
      "| Program | RichTest sequences | Strategy | Executions | Cut short | Traces | Seconds | "
      "Verdict |\n");
  std::printf("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n");
  for (const weft::richtest::Program& p : weft::richtest::programs()) {
    bool wanted = only.empty();
    for (const std::string& prefix : only) wanted |= p.name.rfind(prefix, 0) == 0;
    if (!wanted) continue;
    for (const weft::StrategyKind kind : strategies) {
      weft::Options o;
      o.strategy = kind;
      o.count_traces = true;
      o.pv_reduction = pv_reduction && kind == weft::StrategyKind{"reachability"};
      o.thread_symmetry = symmetry && kind == weft::StrategyKind{"reachability"};
      o.max_seconds = time_limit;
      const weft::Result r = weft::explore(o, p.body);
      const char* verdict = r.verdict == weft::Verdict::kBugFound              ? "bug found"
                            : r.incomplete_code == weft::Incompleteness::kNone ? "explored, no bug"
                                                                               : "incomplete";
      std::printf("| %s | %s | %s%s%s | %llu | %llu | %llu | %.2f | %s |\n", p.name.c_str(),
                  p.paper_sequences ? std::to_string(p.paper_sequences).c_str() : "–",
                  weft::explorer::strategy_name(kind), o.pv_reduction ? " (P/V)" : "",
                  o.thread_symmetry ? " (symmetry)" : "",
                  static_cast<unsigned long long>(r.stats.executions),
                  static_cast<unsigned long long>(r.stats.sleep_blocked),
                  static_cast<unsigned long long>(r.stats.traces), r.stats.seconds, verdict);
      std::fflush(stdout);
      if (p.buggy != (r.verdict == weft::Verdict::kBugFound)) {
        std::fprintf(stderr, "bench_richtest: %s: unexpected verdict: %s\n", p.name.c_str(),
                     r.summary().c_str());
        return 1;
      }
    }
  }
  return 0;
}
