// A thread kills the process with a signal in one interleaving; another has an assertion
// failure. Exploring on (--all-bugs) must report both.
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turn;

static void* killer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int mine = turn++;
  pthread_mutex_unlock(&lock);
  if (mine == 0) kill(getpid(), SIGTERM);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, killer, 0);
  pthread_mutex_lock(&lock);
  int mine = turn++;
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  assert(mine == 1);
  return 0;
}
