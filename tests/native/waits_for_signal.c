// A thread that waits for a signal (sigwait) would block the one OS thread every weft thread
// runs on: weft does not model signal waits, and says so at once (it hung until the execution
// time limit, blaming "a loop with no scheduling point").
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
  pthread_join(t, 0);
  return 0;
}
