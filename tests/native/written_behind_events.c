// A thread writes a shared buffer through the C library (snprintf is not instrumented, so the
// write is no event), and main reads it after a flag the thread sets. Whether main sees the
// write depends on the order of the flag's accesses, but no event wrote what it sees: the
// thread model (thread_model.hpp) finds two executions that saw different "initial" bytes and
// stops computing executions. The exploration is the same with the model as without.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

char buffer[8];
int flag;

static void* writer(void* arg) {
  (void)arg;
  flag = 1;
  snprintf(buffer, sizeof buffer, "%d", 1);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  int seen = flag;
  char c = buffer[0];
  assert(seen == 0 || c == '1');
  pthread_join(t, 0);
  return 0;
}
