// Threads that signal or broadcast a condition variable no thread may be waiting on: the
// notifications are lost (POSIX: they do nothing), so they commute with each other and every
// order of them is one trace (POET §3.1: lost signals depend only on waits and on
// notifications that take effect). With -DWAITER a thread also waits for a flag main sets:
// a notification may then wake it (it waits again) or be lost.
#include <pthread.h>

#ifndef NOTIFIERS
#define NOTIFIERS 3
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ready;

static void* notifier(void* arg) {
  if (arg)
    pthread_cond_broadcast(&changed);
  else
    pthread_cond_signal(&changed);
  return 0;
}

#ifdef WAITER
static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!ready) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}
#endif

int main(void) {
  pthread_t t[NOTIFIERS + 1];
  for (int i = 0; i < NOTIFIERS; i++) pthread_create(&t[i], 0, notifier, i == 0 ? &t[i] : 0);
#ifdef WAITER
  pthread_create(&t[NOTIFIERS], 0, waiter, 0);
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&lock);
  pthread_join(t[NOTIFIERS], 0);
#endif
  for (int i = 0; i < NOTIFIERS; i++) pthread_join(t[i], 0);
  return 0;
}
