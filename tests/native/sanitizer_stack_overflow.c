// AddressSanitizer finds a stack-buffer-overflow that happens in one interleaving only: the
// worker indexes its local array with a value the other thread may have changed first.
#include <pthread.h>

static int slot = 3;  // the last element of `values`, until grow() runs
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* grow(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  slot = 4;
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* worker(void* arg) {
  (void)arg;
  int values[4] = {0, 0, 0, 0};
  pthread_mutex_lock(&lock);
  const int i = slot;
  pthread_mutex_unlock(&lock);
  values[i] = 1;  // past the end when grow() ran first
  return (void*)(long)values[0];
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, grow, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
