// A one-slot buffer with two consumers that test the condition with `if` instead of `while`
// (the bug of ExitBlock §7): a consumer woken after the other consumer emptied the slot takes
// from an empty buffer.
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int items;

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  if (items == 0) pthread_cond_wait(&changed, &lock);  // the bug: should be `while`
  assert(items > 0);
  --items;
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* producer(void* arg) {
  (void)arg;
  for (int i = 0; i < 2; ++i) {
    pthread_mutex_lock(&lock);
    ++items;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t c1, c2, p;
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(c1, 0);
  pthread_join(c2, 0);
  pthread_join(p, 0);
  return 0;
}
