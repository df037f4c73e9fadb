// OpenMP's synchronisation constructs and library routines, each used correctly, with
// assertions on what OpenMP promises: single runs once, master and masked on their thread,
// locks and named critical sections exclude, nested regions run with one thread, single
// copyprivate hands its value to every thread, a region whose if clause is false runs alone.
// Compiled with -fopenmp; weft should find no bug.
#include <assert.h>
#include <omp.h>

int single_runs, master_runs, masked_runs, locked, nest_locked, named;
int nested_threads[2] = {-1, -1};
int copies[2];
omp_lock_t lock;
omp_nest_lock_t nest_lock;

int main(void) {
  assert(omp_get_num_threads() == 1 && !omp_in_parallel() && omp_get_max_threads() == 2);
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest_lock);
  int copied = 0;
#pragma omp parallel private(copied)
  {
    const int me = omp_get_thread_num();
    assert(omp_get_num_threads() == 2 && omp_in_parallel() && omp_get_level() == 1);
#pragma omp single
    single_runs++;
#pragma omp master
    master_runs += me == 0;
#pragma omp masked filter(1)
    masked_runs += me == 1;
    omp_set_lock(&lock);
    locked++;
    omp_unset_lock(&lock);
    omp_set_nest_lock(&nest_lock);
    omp_set_nest_lock(&nest_lock);
    nest_locked++;
    omp_unset_nest_lock(&nest_lock);
    omp_unset_nest_lock(&nest_lock);
#pragma omp critical(named)
    named++;
#pragma omp parallel
    {
#pragma omp master
      nested_threads[me] = omp_get_num_threads();
    }
#pragma omp single copyprivate(copied)
    copied = 42;
    copies[me] = copied;
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest_lock);
  assert(single_runs == 1 && master_runs == 1 && masked_runs == 1);
  assert(locked == 2 && nest_locked == 2 && named == 2);
  assert(nested_threads[0] == 1 && nested_threads[1] == 1);
  assert(copies[0] == 42 && copies[1] == 42);

  int alone = 0;
#pragma omp parallel if (named == 0)
  alone = omp_get_num_threads() + omp_get_level();
  assert(alone == 2);  // one thread, on level 1
  return 0;
}
