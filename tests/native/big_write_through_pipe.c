// A writer sends more than a pipe holds (64 KiB) in one blocking write, which goes in pieces as
// the reader makes room; the reader checks every byte. Closing the write end gives the reader
// the end of the data.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { kBytes = 150000 };
int channel[2];

void* writer(void* unused) {
  (void)unused;
  unsigned char* data = malloc(kBytes);
  for (int i = 0; i < kBytes; ++i) data[i] = (unsigned char)(i * 7);
  assert(write(channel[1], data, kBytes) == kBytes);
  free(data);
  close(channel[1]);
  return 0;
}

int main(void) {
  assert(pipe(channel) == 0);
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  static unsigned char got[kBytes + 1];
  long total = 0;
  for (;;) {
    const ssize_t n = read(channel[0], got + total, sizeof got - total);
    assert(n >= 0);
    if (n == 0) break;
    total += n;
  }
  assert(total == kBytes);
  for (int i = 0; i < kBytes; ++i) assert(got[i] == (unsigned char)(i * 7));
  pthread_join(t, 0);
  return 0;
}
