// Sleeps in two threads: a scheduling point each that touches nothing, so one execution covers
// them all. Once the program has a signal handler (HANDLER), a signal may interrupt a sleep, so
// each sleep is a look for signals and their orders are explored. weft's own crash handler,
// installed through the same sigaction, must not count as the program's.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#ifdef HANDLER
static void on_usr1(int sig) {
  (void)sig;
}
#endif

static void* sleeper(void* arg) {
  (void)arg;
  usleep(1);
  usleep(1);
  return 0;
}

int main(void) {
#ifdef HANDLER
  signal(SIGUSR1, on_usr1);
#endif
  pthread_t t;
  pthread_create(&t, 0, sleeper, 0);
  usleep(1);
  usleep(1);
  pthread_join(t, 0);
  return 0;
}
