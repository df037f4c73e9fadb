// Descriptors open before main (one a constructor opened, stdin) that main closes: each
// execution must find them open, as a fresh process would, although the worker's executions
// share them. Before weft put them back, the second execution failed its first assertion.
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int early;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turns;

__attribute__((constructor)) static void open_early(void) {
  early = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void* take_turn(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++turns;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  assert(fcntl(early, F_GETFD) == FD_CLOEXEC);  // open, with its flags
  assert(fcntl(0, F_GETFD) != -1);
  pthread_t t;
  pthread_create(&t, 0, take_turn, 0);
  take_turn(0);
  pthread_join(t, 0);
  assert(close(early) == 0);
  assert(fclose(stdin) == 0);
  // A descriptor opened now gets the lowest free number, as in a fresh process.
  const int fresh = open("/dev/null", O_RDONLY);
  assert(fresh == 0);
  close(fresh);
  return 0;
}
