// glibc's record of whether the process has threads, which libstdc++ reads (shared_ptr counts,
// stop_callback, function-local statics): set while main runs alone, cleared once a thread is
// created, and set again at the start of every execution.
#include <assert.h>
#include <pthread.h>
#include <sys/single_threaded.h>

static void* nothing(void* arg) {
  return arg;
}

int main(void) {
  assert(__libc_single_threaded);
  pthread_t t;
  pthread_create(&t, 0, nothing, 0);
  assert(!__libc_single_threaded);
  pthread_join(t, 0);
  assert(!__libc_single_threaded);  // glibc never sets it back
  return 0;
}
