// Worksharing loops and sections, each checked against what OpenMP promises: static schedules
// in the layout the specification gives, dynamic and guided ones hand out every iteration
// once, sections run once each, ordered regions in iteration order. PART (1-5) picks one, so
// that their interleavings add up instead of multiplying. Compiled with -fopenmp; weft should
// find no bug.
#include <assert.h>
#include <omp.h>

#ifndef PART
#define PART 1
#endif
#define N 5

int owner[N] = {-1, -1, -1, -1, -1};
int ran[N];

int main(void) {
#if PART == 1
  // schedule(static): blocks of 3 and 2 iterations.
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i) owner[i] = omp_get_thread_num();
  assert(owner[0] == 0 && owner[1] == 0 && owner[2] == 0 && owner[3] == 1 && owner[4] == 1);
#elif PART == 2
  // schedule(static, 2): chunks dealt round robin.
#pragma omp parallel for schedule(static, 2)
  for (int i = 0; i < N; ++i) owner[i] = omp_get_thread_num();
  assert(owner[0] == 0 && owner[1] == 0 && owner[2] == 1 && owner[3] == 1 && owner[4] == 0);
#elif PART == 3
  // Dynamic: every iteration once, by whichever thread took its chunk.
#pragma omp parallel for schedule(dynamic, 2)
  for (int i = 0; i < N; ++i) ran[i]++;
  for (int i = 0; i < N; ++i) assert(ran[i] == 1);
#elif PART == 4
  // Guided, on a loop that counts down.
#pragma omp parallel for schedule(guided)
  for (long i = N - 1; i >= 0; --i) ran[i]++;
  for (int i = 0; i < N; ++i) assert(ran[i] == 1);
#else
  int sections_ran[2] = {0, 0};
  int next_ordered = 0;
#pragma omp parallel
  {
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
  }
  assert(sections_ran[0] == 1 && sections_ran[1] == 1 && next_ordered == 3);
#endif
  return 0;
}
