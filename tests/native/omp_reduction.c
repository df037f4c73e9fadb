// A parallel loop sums 0..N-1 with reduction(+:sum): correct. Each thread adds its part to a
// private copy; the copies are combined one thread at a time (weft's __kmpc_reduce_nowait holds
// the reduction lock), so the result is N*(N-1)/2 in every interleaving.
#include <assert.h>
#include <omp.h>

#ifndef N
#define N 8
#endif

int main(void) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < N; ++i) sum += i;
  assert(sum == (long)N * (N - 1) / 2);
  return 0;
}
