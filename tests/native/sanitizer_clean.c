// A correct program whose threads use local arrays, a global array and nested calls, so that
// AddressSanitizer poisons and unpoisons their frames on weft's thread stacks in every
// execution; one thread leaves through pthread_exit, its frames never returning. Each frees a
// string from strdup, which under ASan must come from the heap free() gives back to. Its
// Mazurkiewicz traces are the 3! orders of the critical sections.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int totals[3];
static int next_index;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int sum(const int* values, int count) {
  int s = 0;
  for (int i = 0; i < count; ++i) s += values[i];
  return s;
}

static void record(int amount) {
  int values[8];
  for (int i = 0; i < 8; ++i) values[i] = amount;
  pthread_mutex_lock(&lock);
  totals[next_index++] = sum(values, 8);
  pthread_mutex_unlock(&lock);
}

static void* worker(void* arg) {
  char name[16] = "worker";
  char* label = strdup(name);
  record((int)(long)arg + label[0] - 'w');
  free(label);
  if ((long)arg == 2) pthread_exit(0);
  return 0;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; ++i) pthread_create(&t[i], 0, worker, (void*)(i + 1));
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  assert(totals[0] + totals[1] + totals[2] == 8 * (1 + 2 + 3));
  return 0;
}
