// A signal-handling thread as in pbzip2: every thread blocks SIGUSR1, a dedicated thread waits
// for it with sigwait, and main sends it with pthread_kill when the work is done. The handler
// thread must see the work finished: with FORGET_TO_FINISH it may run first and the assertion
// fails in some interleaving.
#include <assert.h>
#include <pthread.h>
#include <signal.h>

static sigset_t set;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void* handle_signals(void* arg) {
  (void)arg;
  int sig = 0;
  sigwait(&set, &sig);
  assert(sig == SIGUSR1);
  pthread_mutex_lock(&lock);
  assert(done);
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* work(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, 0);
  pthread_t handler, worker;
  pthread_create(&handler, 0, handle_signals, 0);
  pthread_create(&worker, 0, work, 0);
#ifndef FORGET_TO_FINISH
  pthread_join(worker, 0);
#endif
  pthread_kill(handler, SIGUSR1);
  pthread_join(handler, 0);
#ifdef FORGET_TO_FINISH
  pthread_join(worker, 0);
#endif
  return 0;
}
