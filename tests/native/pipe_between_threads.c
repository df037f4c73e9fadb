// A consumer thread reads what main writes into a pipe. weft does not model pipes yet: the read
// of an empty pipe stops the run with exit 2, naming the call, instead of hanging every thread.
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

int channel[2];

void* consumer(void* unused) {
  (void)unused;
  char got = 0;
  assert(read(channel[0], &got, 1) == 1);
  assert(got == 'x');
  return 0;
}

int main(void) {
  assert(pipe(channel) == 0);
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  const char byte = 'x';
  assert(write(channel[1], &byte, 1) == 1);
  pthread_join(t, 0);
  return 0;
}
