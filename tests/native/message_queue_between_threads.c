// A worker sends a message through a POSIX message queue that main receives. weft does not model
// message queues yet: the verdict must not call the interleavings explored. With EMPTY_RECEIVE,
// main receives before anything can be sent, which would block: the run stops naming the call.
#include <assert.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

mqd_t queue;

void* work(void* unused) {
  (void)unused;
  assert(mq_send(queue, "m", 1, 0) == 0);
  return 0;
}

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "/weft-test-%d", (int)getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 8};
  queue = mq_open(name, O_CREAT | O_RDWR, 0600, &attr);
  assert(queue != (mqd_t)-1);
  mq_unlink(name);
  char got[8];
#ifdef EMPTY_RECEIVE
  assert(mq_receive(queue, got, sizeof got, 0) == 1);
#endif
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pthread_join(t, 0);
  assert(mq_receive(queue, got, sizeof got, 0) == 1 && got[0] == 'm');
  mq_close(queue);
  return 0;
}
