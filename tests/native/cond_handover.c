// A producer hands ITEMS items, one at a time, to two consumers through a one-slot buffer guarded
// by a mutex and a condition variable (the shape of issue 41's producer and consumer, which no
// stateless strategy finished in a minute). The consumers' loops meet the same states again and
// again: which consumer took how many items matters, not in which order the waits, signals and
// wake-ups came. With IF_NOT_WHILE a consumer checks the buffer once instead of in a loop, and
// one woken after the other consumer emptied the slot takes nothing (an assertion fails).
#include <assert.h>
#include <pthread.h>

#ifndef ITEMS
#define ITEMS 20
#endif

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
int slot;  // 0: empty
int left = ITEMS;

void* producer(void* unused) {
  for (int i = 1; i <= ITEMS; ++i) {
    pthread_mutex_lock(&m);
    while (slot != 0) pthread_cond_wait(&changed, &m);
    slot = i;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&m);
  }
  return unused;
}

void* consumer(void* unused) {
  for (;;) {
    pthread_mutex_lock(&m);
#ifdef IF_NOT_WHILE
    if (slot == 0 && left > 0) pthread_cond_wait(&changed, &m);
#else
    while (slot == 0 && left > 0) pthread_cond_wait(&changed, &m);
#endif
    if (left == 0) {
      pthread_mutex_unlock(&m);
      return unused;
    }
    assert(slot != 0);
    slot = 0;
    --left;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&m);
  }
}

int main(void) {
  pthread_t p, c1, c2;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c1, 0);
  pthread_join(c2, 0);
  assert(slot == 0 && left == 0);
  return 0;
}
