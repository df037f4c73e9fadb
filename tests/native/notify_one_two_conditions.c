// One condition variable for two conditions, notified with pthread_cond_signal where
// pthread_cond_broadcast was needed (the error of ExitBlock §7): when the signal for `a_ready`
// wakes the thread waiting for `b_ready`, that thread waits again, and the one waiting for
// `a_ready` may wait for ever: a condition deadlock.
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int a_ready, b_ready;

static void* wait_for_a(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!a_ready) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* wait_for_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!b_ready) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* set_both(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  a_ready = 1;
  pthread_cond_signal(&changed);  // the bug: should be pthread_cond_broadcast
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  b_ready = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t a, b, s;
  pthread_create(&a, 0, wait_for_a, 0);
  pthread_create(&b, 0, wait_for_b, 0);
  pthread_create(&s, 0, set_both, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(s, 0);
  return 0;
}
