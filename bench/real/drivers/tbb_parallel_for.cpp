// oneTBB's parallel_for over a small range with 2 threads, each index written by the one task
// that owns it, then summed by the main thread. Correct. oneTBB hands tasks between its threads
// with its own atomics inside libtbb, where weft cannot see: what weft should say is no
// confident race and no "explored": the verdict names libtbb, and any race is marked as one
// that synchronisation inside it may order.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <cassert>

int main() {
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 2);
  int squares[4] = {};
  tbb::parallel_for(0, 4, [&](int i) { squares[i] = i * i; });
  int sum = 0;
  for (int s : squares) sum += s;
  assert(sum == 0 + 1 + 4 + 9);
  return 0;
}
