// The OpenMP constructs weft models, each used correctly, with assertions on what OpenMP
// promises: loop schedules hand out every iteration once (static ones in the layout the
// specification gives), single runs once, master and masked on their thread, sections once
// each, ordered regions in iteration order, locks and named critical sections exclude, nested
// regions run with one thread. Compiled with -fopenmp; weft should find no bug.
#include <assert.h>
#include <omp.h>

#define N 5

int owner[N];
int ran[N];
int single_runs, master_runs, masked_runs, sections_ran[2], next_ordered, locked, nest_locked,
    named;
int nested_threads[2] = {-1, -1};
omp_lock_t lock;
omp_nest_lock_t nest_lock;

static void reset(void) {
  for (int i = 0; i < N; ++i) owner[i] = ran[i] = -1;
}

int main(void) {
  assert(omp_get_num_threads() == 1 && !omp_in_parallel());
  omp_set_num_threads(2);
  assert(omp_get_max_threads() == 2);

  // schedule(static): blocks of 3 and 2 iterations.
  reset();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i) owner[i] = omp_get_thread_num();
  assert(owner[0] == 0 && owner[1] == 0 && owner[2] == 0 && owner[3] == 1 && owner[4] == 1);

  // schedule(static, 2): chunks dealt round robin.
  reset();
#pragma omp parallel for schedule(static, 2)
  for (int i = 0; i < N; ++i) owner[i] = omp_get_thread_num();
  assert(owner[0] == 0 && owner[1] == 0 && owner[2] == 1 && owner[3] == 1 && owner[4] == 0);

  // Dynamic and guided: every iteration once, by whichever thread took its chunk.
  reset();
#pragma omp parallel for schedule(dynamic, 2)
  for (int i = 0; i < N; ++i) ran[i] = i;
  for (int i = 0; i < N; ++i) assert(ran[i] == i);
  reset();
#pragma omp parallel for schedule(guided)
  for (long i = N - 1; i >= 0; --i) ran[i] = (int)i;
  for (int i = 0; i < N; ++i) assert(ran[i] == i);

  omp_init_lock(&lock);
  omp_init_nest_lock(&nest_lock);
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
    assert(omp_get_num_threads() == 2 && omp_in_parallel() && omp_get_level() == 1);
#pragma omp single
    single_runs++;
#pragma omp master
    master_runs += me == 0;
#pragma omp masked filter(1)
    masked_runs += me == 1;
#pragma omp sections
    {
#pragma omp section
      sections_ran[0]++;
#pragma omp section
      sections_ran[1]++;
    }
#pragma omp for ordered schedule(dynamic)
    for (int i = 0; i < 3; ++i) {
#pragma omp ordered
      {
        assert(next_ordered == i);
        next_ordered++;
      }
    }
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
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest_lock);
  assert(single_runs == 1 && master_runs == 1 && masked_runs == 1);
  assert(sections_ran[0] == 1 && sections_ran[1] == 1);
  assert(next_ordered == 3 && locked == 2 && nest_locked == 2 && named == 2);
  assert(nested_threads[0] == 1 && nested_threads[1] == 1);
  return 0;
}
