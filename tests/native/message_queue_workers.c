// Two workers send a message each through a POSIX message queue that main created; the kernel
// hands out the higher priority first. Main receives both. With PRIORITY_FIRST_ASSUMED it
// wrongly assumes it always gets the urgent message first (not when it arrives second, after
// main took the other). The queue (named by $WEFT_TEST_QUEUE, if set) is left linked: each
// execution must start without it, and none may be left after the run.
#include <assert.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

mqd_t queue;

void* send_plain(void* unused) {
  (void)unused;
  assert(mq_send(queue, "p", 1, 1) == 0);
  return 0;
}

void* send_urgent(void* unused) {
  (void)unused;
  assert(mq_send(queue, "u", 1, 5) == 0);
  return 0;
}

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "/weft-test-workers-%d", (int)getpid());
  if (getenv("WEFT_TEST_QUEUE")) snprintf(name, sizeof name, "%s", getenv("WEFT_TEST_QUEUE"));
  struct mq_attr attr = {.mq_maxmsg = 2, .mq_msgsize = 8};
  queue = mq_open(name, O_CREAT | O_RDWR, 0600, &attr);
  assert(queue != (mqd_t)-1);
  pthread_t a, b;
  pthread_create(&a, 0, send_plain, 0);
  pthread_create(&b, 0, send_urgent, 0);
  char got[8], first;
  unsigned priority;
  assert(mq_receive(queue, got, sizeof got, &priority) == 1);
  first = got[0];
  assert(first == (priority == 5 ? 'u' : 'p'));
  assert(mq_receive(queue, got, sizeof got, 0) == 1 && got[0] != first);
#ifdef PRIORITY_FIRST_ASSUMED
  assert(first == 'u');
#endif
  pthread_join(a, 0);
  pthread_join(b, 0);
  mq_close(queue);
  return 0;
}
