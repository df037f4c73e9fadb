// A thread that waits for a signal (sigwait), as programs with a signal-handling thread do
// (pbzip2). No thread sends one: the wait lasts for ever. The process ends without the thread,
// or, with JOIN_IT, main waits for it: a deadlock.
#include <pthread.h>
#include <signal.h>

static sigset_t set;

static void* waiter(void* arg) {
  (void)arg;
  int sig;
  sigwait(&set, &sig);
  return 0;
}

int main(void) {
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, 0);
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
#ifdef JOIN_IT
  pthread_join(t, 0);
#endif
  return 0;
}
