// Two threads each free the block they share (the C library aborts on the second free).
#include <pthread.h>
#include <stdlib.h>

char *buffer;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *finish(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  free(buffer);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  buffer = malloc(32);
  pthread_t a, b;
  pthread_create(&a, 0, finish, 0);
  pthread_create(&b, 0, finish, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
