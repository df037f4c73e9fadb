// A program that can be built without OpenMP defines the omp_* routines it calls itself when
// _OPENMP is not defined, as many do. Built by weft-cc without -fopenmp it must link (weft's
// OpenMP model is only taken from its libomp.a when -fopenmp links -lomp) and run its stubs.
#include <assert.h>

#ifdef _OPENMP
#include <omp.h>
#else
int omp_get_thread_num(void) {
  return 7;
}
int omp_get_num_threads(void) {
  return 1;
}
#endif

int main(void) {
  int seen = -1;
#pragma omp parallel
  {
#pragma omp master
    seen = omp_get_thread_num() + omp_get_num_threads();
  }
#ifdef _OPENMP
  assert(seen == 2);  // thread 0 of a team of two
#else
  assert(seen == 8);  // the stubs
#endif
  return 0;
}
