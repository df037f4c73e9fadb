// Two workers each add 1 to an eventfd that main reads until it has counted 2. With
// ONE_READ_ASSUMED main wrongly assumes one read sees both adds.
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int counter;

void* work(void* unused) {
  (void)unused;
  const uint64_t one = 1;
  assert(write(counter, &one, sizeof one) == sizeof one);
  return 0;
}

int main(void) {
  counter = eventfd(0, 0);
  assert(counter >= 0);
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  uint64_t seen = 0, got = 0;
#ifdef ONE_READ_ASSUMED
  assert(read(counter, &got, sizeof got) == sizeof got);
  assert(got == 2);
#else
  while (seen < 2) {
    assert(read(counter, &got, sizeof got) == sizeof got);
    seen += got;
  }
  assert(seen == 2);
#endif
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
