// Each thread creates the next, ten deep, and the deepest allocates: its name (0.0.0.0...) is
// longer than a short string holds, and placing its heap by name must not recurse into the
// allocator it is placing (it did: a false crash, reported as the program's). Correct: no bug.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static void* nest(void* arg) {
  const long depth = (long)arg;
  if (depth == 10) {
    int* block = malloc(64);
    assert(block);
    block[3] = 7;
    free(block);
    return 0;
  }
  pthread_t child;
  pthread_create(&child, 0, nest, (void*)(depth + 1));
  pthread_join(child, 0);
  return 0;
}

int main(void) {
  nest(0);
  return 0;
}
