// lbzip2's pattern: main blocks SIGUSR2 and waits in sigsuspend until a worker signals the
// process with kill(getpid(), SIGUSR2); the handler runs in main and sets a flag. Correct:
// whichever thread runs first, main wakes. With NO_SIGNAL the worker forgets to signal, and
// main waits for ever while the worker is joined by no one: a deadlock only if it is joined.
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static volatile sig_atomic_t finished;

static void on_usr2(int sig) {
  (void)sig;
  finished = 1;
}

static void* worker(void* arg) {
  (void)arg;
#ifndef NO_SIGNAL
  kill(getpid(), SIGUSR2);
#endif
  return 0;
}

int main(void) {
  struct sigaction action = {0};
  action.sa_handler = on_usr2;
  sigaction(SIGUSR2, &action, 0);
  sigset_t usr2, old;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &usr2, &old);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  while (!finished) sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, 0);
  pthread_join(t, 0);
  assert(finished);
  return 0;
}
