/* A producer hands four values over to two consumers through an atomic flag; all three also
 * count under a mutex. Race-free: the plain reads of `data` come after the flag's store that
 * follows the writes. For the thread model with --points=sync (native_e2e_test.cpp): atomics
 * order its computed executions as the race detector orders them. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static int data[4];
static atomic_int ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; i++) data[i] = i * 10;
  atomic_store(&ready, 1);
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    count++;
    pthread_mutex_unlock(&m);
  }
  return 0;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    count++;
    pthread_mutex_unlock(&m);
  }
  if (atomic_load(&ready)) assert(data[3] == 30);
  return 0;
}

int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  assert(count == 9);
  return 0;
}
