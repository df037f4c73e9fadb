// Each of two threads reads a byte from the other before it writes its own: neither ever
// writes, a deadlock in every execution, reported with the pipe each one waits on.
#include <pthread.h>
#include <unistd.h>

int to_main[2], to_other[2];

void* other(void* unused) {
  (void)unused;
  char c;
  if (read(to_other[0], &c, 1) == 1) write(to_main[1], "y", 1);
  return 0;
}

int main(void) {
  pipe(to_main);
  pipe(to_other);
  pthread_t t;
  pthread_create(&t, 0, other, 0);
  char c;
  if (read(to_main[0], &c, 1) == 1) write(to_other[1], "x", 1);
  pthread_join(t, 0);
  return 0;
}
