// An explicit task: weft does not model OpenMP tasks, and says so in one line (exit 2).
#include <assert.h>

int main(void) {
  int x = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task shared(x)
    x++;
#pragma omp taskwait
  }
  assert(x == 1);
  return 0;
}
