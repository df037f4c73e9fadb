// A program that forks while it is being explored: weft does not model it and must say so.
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void* worker(void* arg) { return arg; }

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, 0, 0);
  pthread_join(t, 0);
  return 0;
}
