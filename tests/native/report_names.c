// Reports name memory in the program's terms: a global array's element, a global struct's field,
// a heap block by its size and allocation site, a local by its name and function. Each pair of
// unsynchronised accesses below is a data race (weft check --all-bugs reports all four).
#include <pthread.h>
#include <stdlib.h>

struct queue {
  int capacity;
  int head;
};

static int counts[4];
static struct queue jobs;
static int* block;

static void* worker(void* arg) {
  int* total = arg;
  counts[3] = 1;
  jobs.head = 2;
  block[1] = 3;
  *total = 4;
  return 0;
}

int main(void) {
  int total = 0;
  block = malloc(4 * sizeof(int));
  pthread_t t;
  pthread_create(&t, 0, worker, &total);
  int seen = counts[3] + jobs.head + block[1] + total;
  pthread_join(t, 0);
  free(block);
  return seen == 42;
}
