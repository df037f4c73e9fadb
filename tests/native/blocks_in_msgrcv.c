// A thread waits for a System V message no thread sends: the process blocks in a system call
// weft does not model, and the execution time-out names it instead of guessing at a loop.
#include <pthread.h>
#include <sys/ipc.h>
#include <sys/msg.h>

struct message {
  long type;
  char text[8];
};

int queue;

static void* receiver(void* arg) {
  (void)arg;
  struct message m;
  msgrcv(queue, &m, sizeof m.text, 0, 0);
  return 0;
}

int main(void) {
  queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  pthread_t t;
  pthread_create(&t, 0, receiver, 0);
  pthread_join(t, 0);
  msgctl(queue, IPC_RMID, 0);
  return 0;
}
