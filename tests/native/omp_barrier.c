// Two phases in one parallel region of two threads: each thread writes its own slot, then reads
// its neighbour's. Without the barrier between the phases (BARRIER=0) a thread may read the
// slot before its neighbour wrote it: a data race, and a failed assertion when every access is
// a scheduling point. With it (BARRIER=1) both phases are ordered in every interleaving.
#include <assert.h>
#include <omp.h>

#ifndef BARRIER
#define BARRIER 1
#endif

int slot[2];

int main(void) {
#pragma omp parallel num_threads(2)
  {
    const int me = omp_get_thread_num();
    slot[me] = me + 1;
#if BARRIER
#pragma omp barrier
#endif
    const int other = 1 - me;
    assert(slot[other] == other + 1);
  }
  return 0;
}
