// A file opened before main (by a constructor) is read in every execution: each must read it
// from where a fresh process would, its beginning, although the worker's descriptor is shared by
// all executions.
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int executable;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turns;

__attribute__((constructor)) static void open_early(void) {
  executable = open("/proc/self/exe", O_RDONLY);
}

static void* take_turn(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++turns;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  char magic[4];
  assert(read(executable, magic, sizeof magic) == 4);
  assert(memcmp(magic, "\177ELF", 4) == 0);
  pthread_t t;
  pthread_create(&t, 0, take_turn, 0);
  take_turn(0);
  pthread_join(t, 0);
  return 0;
}
