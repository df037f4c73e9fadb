// A thread allocates a block per request and forgets one (reported only with --leaks).
#include <pthread.h>
#include <stdlib.h>

void *serve(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) {
    char *request = malloc(24);
    request[0] = (char)i;
    if (i != 1) free(request);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, serve, 0);
  pthread_join(t, 0);
  return 0;
}
