// A worker sends SIGUSR1 to the process while main sleeps; neither blocks it, so POSIX lets
// either take it (Linux prefers the main thread). The handler records which thread ran it. The
// assertion that the sender ran it fails when main takes it: before, weft always ran the
// handler in the sender and called the program explored. With MAIN_BLOCKS, main blocks the
// signal after starting the worker (whose own mask, its creator's then, lets it through): only
// the sender can take it, and every behaviour is explored.
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static _Thread_local int who;  // 1 in main, 2 in the worker
static volatile sig_atomic_t taken_by;

static void on_usr1(int sig) {
  (void)sig;
  taken_by = who;
}

static void* worker(void* arg) {
  (void)arg;
  who = 2;
  kill(getpid(), SIGUSR1);
  return 0;
}

int main(void) {
  who = 1;
  struct sigaction action = {0};
  action.sa_handler = on_usr1;
  sigaction(SIGUSR1, &action, 0);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
#ifdef MAIN_BLOCKS
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, 0);
#endif
  sleep(1);
  pthread_join(t, 0);
#ifdef MAIN_BLOCKS
  assert(taken_by == 2 || taken_by == 0);  // pending for main, blocked: never delivered
#else
  assert(taken_by == 2);
#endif
  return 0;
}
