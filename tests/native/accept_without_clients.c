// A server thread accepts on a loopback listening socket that no thread of the program connects
// to: only a client outside the program could. Not a deadlock of the program's: the run stops
// naming the accept.
#include <assert.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

int listener;

void* serve(void* unused) {
  (void)unused;
  const int connection = accept(listener, 0, 0);
  if (connection >= 0) close(connection);
  return 0;
}

int main(void) {
  listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  assert(bind(listener, (struct sockaddr*)&at, sizeof at) == 0);
  assert(listen(listener, 1) == 0);
  pthread_t t;
  pthread_create(&t, 0, serve, 0);
  pthread_join(t, 0);
  return 0;
}
