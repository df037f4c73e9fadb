// A server thread accepts two clients on a listening socket (loopback TCP, or a UNIX socket
// with UNIX_SOCKET) and echoes each one's byte back; each client checks its answer. With
// ACCEPT_ORDER_ASSUMED the server wrongly assumes client 'a' connects first.
#include <assert.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int listener;
struct sockaddr_storage address;
socklen_t address_length;

int new_socket(void) {
#ifdef UNIX_SOCKET
  return socket(AF_UNIX, SOCK_STREAM, 0);
#else
  return socket(AF_INET, SOCK_STREAM, 0);
#endif
}

void* serve(void* unused) {
  (void)unused;
  for (int i = 0; i < 2; ++i) {
    const int connection = accept(listener, 0, 0);
    assert(connection >= 0);
    char c;
    assert(read(connection, &c, 1) == 1);
#ifdef ACCEPT_ORDER_ASSUMED
    assert(c == (i == 0 ? 'a' : 'b'));
#endif
    assert(write(connection, &c, 1) == 1);
    close(connection);
  }
  return 0;
}

void* client(void* name) {
  const int s = new_socket();
  assert(connect(s, (struct sockaddr*)&address, address_length) == 0);
  assert(write(s, name, 1) == 1);
  char back = 0;
  assert(read(s, &back, 1) == 1);
  assert(back == *(char*)name);
  close(s);
  return 0;
}

int main(void) {
  listener = new_socket();
#ifdef UNIX_SOCKET
  struct sockaddr_un* un = (struct sockaddr_un*)&address;
  un->sun_family = AF_UNIX;
  snprintf(un->sun_path, sizeof un->sun_path, "/tmp/weft-echo-%d", (int)getpid());
  unlink(un->sun_path);
  address_length = sizeof *un;
#else
  struct sockaddr_in* in = (struct sockaddr_in*)&address;
  in->sin_family = AF_INET;
  in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  in->sin_port = 0;
  address_length = sizeof *in;
#endif
  assert(bind(listener, (struct sockaddr*)&address, address_length) == 0);
  assert(getsockname(listener, (struct sockaddr*)&address, &address_length) == 0);
  assert(listen(listener, 4) == 0);
  pthread_t server, a, b;
  pthread_create(&server, 0, serve, 0);
  pthread_create(&a, 0, client, "a");
  pthread_create(&b, 0, client, "b");
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(server, 0);
  close(listener);
#ifdef UNIX_SOCKET
  unlink(((struct sockaddr_un*)&address)->sun_path);
#endif
  return 0;
}
