// An event loop waits with epoll on an eventfd and a pipe; one worker wakes it through the
// eventfd, another sends a byte down the pipe, and the loop ends once it has handled both. With
// WAKEUP_FIRST_ASSUMED it wrongly assumes the eventfd's wake-up comes first.
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

int wakeup, bytes[2];

void* wake(void* unused) {
  (void)unused;
  const uint64_t one = 1;
  assert(write(wakeup, &one, sizeof one) == sizeof one);
  return 0;
}

void* send_byte(void* unused) {
  (void)unused;
  assert(write(bytes[1], "m", 1) == 1);
  return 0;
}

int main(void) {
  wakeup = eventfd(0, EFD_NONBLOCK);
  assert(pipe(bytes) == 0);
  const int loop = epoll_create1(0);
  struct epoll_event e = {.events = EPOLLIN, .data.fd = wakeup};
  assert(epoll_ctl(loop, EPOLL_CTL_ADD, wakeup, &e) == 0);
  e.data.fd = bytes[0];
  assert(epoll_ctl(loop, EPOLL_CTL_ADD, bytes[0], &e) == 0);
  pthread_t a, b;
  pthread_create(&a, 0, wake, 0);
  pthread_create(&b, 0, send_byte, 0);
  int woken = 0, received = 0, first = -1;
  while (!woken || !received) {
    struct epoll_event ready[2];
    const int n = epoll_wait(loop, ready, 2, -1);
    assert(n >= 1);
    for (int i = 0; i < n; ++i) {
      if (first < 0) first = ready[i].data.fd;
      if (ready[i].data.fd == wakeup) {
        uint64_t count;
        assert(read(wakeup, &count, sizeof count) == sizeof count);
        woken = 1;
      } else {
        char c;
        assert(read(bytes[0], &c, 1) == 1 && c == 'm');
        received = 1;
      }
    }
  }
#ifdef WAKEUP_FIRST_ASSUMED
  assert(first == wakeup);
#endif
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
