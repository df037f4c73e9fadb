// A worker sends a message through a POSIX message queue that main receives. With
// EMPTY_RECEIVE, main first receives before anything can be sent and waits forever: a deadlock
// that names the queue. With EXISTING_QUEUE the queue is made before main (a constructor), so
// it is the outside world's too: the verdict must not call the orders of its messages explored.
#include <assert.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

mqd_t queue;
char name[64];

void* work(void* unused) {
  (void)unused;
  assert(mq_send(queue, "m", 1, 0) == 0);
  return 0;
}

static void make_queue(void) {
  snprintf(name, sizeof name, "/weft-test-%d", (int)getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 8};
  queue = mq_open(name, O_CREAT | O_RDWR, 0600, &attr);
  assert(queue != (mqd_t)-1);
}

#ifdef EXISTING_QUEUE
__attribute__((constructor)) static void before_main(void) {
  make_queue();
}
#endif

int main(void) {
#ifndef EXISTING_QUEUE
  make_queue();
#endif
  char got[8];
#ifdef EMPTY_RECEIVE
  assert(mq_receive(queue, got, sizeof got, 0) == 1);
#endif
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pthread_join(t, 0);
  assert(mq_receive(queue, got, sizeof got, 0) == 1 && got[0] == 'm');
  mq_close(queue);
  mq_unlink(name);
  return 0;
}
