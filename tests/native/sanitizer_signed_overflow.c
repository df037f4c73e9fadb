// UndefinedBehaviorSanitizer finds a signed overflow that happens in one interleaving only: the
// reader adds one to a value the other thread may have set to INT_MAX first.
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

static int level = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* saturate(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  level = INT_MAX;
  pthread_mutex_unlock(&lock);
  return 0;
}

static void* next_level(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  const int seen = level;
  pthread_mutex_unlock(&lock);
  const int next = seen + 1;  // overflows when saturate() ran first
  printf("next level %d\n", next);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, next_level, 0);
  pthread_create(&b, 0, saturate, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
