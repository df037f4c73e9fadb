// Changes process state that a worker cannot put back (its scheduling priority: only root may
// raise it again). Every execution lowers it once more, so later executions start from what
// earlier ones left: weft must not call such a run complete, and says to use --fresh-process.
#include <pthread.h>
#include <sys/resource.h>

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* add(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++counter;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 1);
  pthread_t t;
  pthread_create(&t, 0, add, 0);
  add(0);
  pthread_join(t, 0);
  return 0;
}
