// Creates 10,000 threads (more than weft's default bound on threads per execution).
#include <pthread.h>

static void* nothing(void* arg) { return arg; }

int main(void) {
  for (int i = 0; i < 10000; ++i) {
    pthread_t t;
    pthread_create(&t, 0, nothing, 0);
    pthread_join(t, 0);
  }
  return 0;
}
