// Two threads take two locks in opposite orders: they can deadlock.
#include <pthread.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;

static void* forward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&first);
  pthread_mutex_lock(&second);
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&first);
  return 0;
}

static void* backward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&second);
  pthread_mutex_lock(&first);
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&second);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, forward, 0);
  pthread_create(&b, 0, backward, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
