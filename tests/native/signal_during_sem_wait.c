// The handler posts the semaphore main waits on (sem_post is async-signal-safe). The worker
// blocks SIGUSR1 before it signals the process, so only main can take the signal, while it
// waits in sem_wait: the kernel interrupts the wait and runs the handler there, which weft does
// not model. The run must stop saying so, not report a deadlock.
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

static sem_t ready;

static void on_usr1(int sig) {
  (void)sig;
  sem_post(&ready);
}

static void* worker(void* arg) {
  (void)arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, 0);
  kill(getpid(), SIGUSR1);
  return 0;
}

int main(void) {
  sem_init(&ready, 0, 0);
  struct sigaction action = {0};
  action.sa_handler = on_usr1;
  sigaction(SIGUSR1, &action, 0);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  while (sem_wait(&ready) != 0) {
  }
  pthread_join(t, 0);
  return 0;
}
