// A consumer polls two socket pairs and, with WRONG_ORDER_ASSUMED, assumes the first producer's
// message arrives first: wrong, the other order is reachable. Before weft modelled channels, its
// verdict on this program called the interleavings explored.
#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

int first[2], second[2];

void* send_on(void* pair) {
  const char byte = 'x';
  assert(write(((int*)pair)[1], &byte, 1) == 1);
  return 0;
}

int main(void) {
  assert(socketpair(AF_UNIX, SOCK_STREAM, 0, first) == 0);
  assert(socketpair(AF_UNIX, SOCK_STREAM, 0, second) == 0);
  pthread_t a, b;
  pthread_create(&a, 0, send_on, first);
  pthread_create(&b, 0, send_on, second);
  struct pollfd wanted[2] = {{first[0], POLLIN, 0}, {second[0], POLLIN, 0}};
  while (poll(wanted, 2, -1) == 0) {
  }
#ifdef WRONG_ORDER_ASSUMED
  assert(wanted[0].revents & POLLIN);
#endif
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
