// A signal interrupts a sleep: main sleeps in nanosleep while a worker signals the process.
// When main takes the signal, its handler runs and nanosleep fails with EINTR, which the
// program does not expect. Before, a sleep was never interrupted.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig) {
  (void)sig;
  handled = 1;
}

static void* worker(void* arg) {
  (void)arg;
  kill(getpid(), SIGUSR1);
  return 0;
}

int main(void) {
  struct sigaction action = {0};
  action.sa_handler = on_usr1;
  sigaction(SIGUSR1, &action, 0);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  struct timespec second = {1, 0};
  const int slept = nanosleep(&second, 0);
  assert(slept == 0);
  pthread_join(t, 0);
  return 0;
}
