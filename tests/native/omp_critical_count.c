// One parallel region whose threads each add one to a counter inside a critical section.
// Thread creation and the final joins commute with everything else, so the only choices are
// the orders of the critical sections: 2! = 2 Mazurkiewicz traces with the default team of two
// threads, 3! = 6 with OMP_NUM_THREADS=3.
#include <assert.h>
#include <omp.h>

int counter;

int main(void) {
  int threads = 0;
#pragma omp parallel
  {
#pragma omp critical
    counter = counter + 1;
#pragma omp master
    threads = omp_get_num_threads();
  }
  assert(counter == threads);
  return 0;
}
