// Two producers write one byte each into a pipe that a consumer reads. The pipe is a channel of
// weft's: the reads wait in weft, and both orders of the bytes are explored. With
// FIRST_BYTE_ASSUMED the consumer wrongly assumes the first producer's byte comes first.
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

int channel[2];

void* produce(void* byte) {
  assert(write(channel[1], byte, 1) == 1);
  return 0;
}

int main(void) {
  assert(pipe(channel) == 0);
  pthread_t a, b;
  pthread_create(&a, 0, produce, "a");
  pthread_create(&b, 0, produce, "b");
  char got[2] = {0, 0};
  assert(read(channel[0], &got[0], 1) == 1);
  assert(read(channel[0], &got[1], 1) == 1);
  assert((got[0] == 'a' && got[1] == 'b') || (got[0] == 'b' && got[1] == 'a'));
#ifdef FIRST_BYTE_ASSUMED
  assert(got[0] == 'a');
#endif
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
