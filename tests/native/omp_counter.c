// Every iteration of a parallel loop adds one to a shared counter. Unprotected (PROTECT=0) the
// increments race and one can be lost; inside `critical` (PROTECT=1) or as an `atomic` update
// (PROTECT=2) the count is right in every interleaving.
#include <assert.h>

#ifndef PROTECT
#define PROTECT 0
#endif
#ifndef N
#define N 2
#endif

int counter;

int main(void) {
#pragma omp parallel for
  for (int i = 0; i < N; ++i) {
#if PROTECT == 1
#pragma omp critical
    counter = counter + 1;
#elif PROTECT == 2
#pragma omp atomic
    counter += 1;
#else
    counter = counter + 1;
#endif
  }
  assert(counter == N);
  return 0;
}
