// A read past the end of a block whose usable bytes end where its size does (16 bytes): it is
// an overflow whether or not another thread has freed the block by then, and those two orders
// are one trace (the read is of no block's bytes, so it does not conflict with the free). The
// report must say the same in both: it describes the block as allocated, not as freed.
#include <pthread.h>
#include <stdlib.h>

int *data;

void *release(void *arg) {
  (void)arg;
  free(data);
  return 0;
}

int main(void) {
  data = calloc(4, sizeof *data);
  int *past = data + 4;
  pthread_t t;
  pthread_create(&t, 0, release, 0);
  int x = *past;
  pthread_join(t, 0);
  return x;
}
