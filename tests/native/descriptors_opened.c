// Every execution starts with the descriptors a fresh process has, also when the worker closes
// those an execution opened only after executions that ran code weft did not compile (which it
// knows by their requests for the thread pointer: execution_worker.cpp). Each execution opens a
// descriptor without closing it, in the way OPEN_WITH names, and must get the number that was
// the lowest free one before main; the first execution after one whose descriptor was left open
// would get the next. The check makes no call, so that only the opening asks.
//   0: the system call in inline assembly, no C library function involved;
//   1: a thread whose start routine is the C library's tmpfile;
//   2: fopen.
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef OPEN_WITH
#define OPEN_WITH 0
#endif

static int first_free;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turns;

__attribute__((constructor)) static void note_first_free(void) {
  first_free = dup(0);
  close(first_free);
}

static void* take_turn(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  turns = turns + 1;
  pthread_mutex_unlock(&lock);
  return 0;
}

static int opened(void) {
#if OPEN_WITH == 0
  long fd;
  const char* path = "/dev/null";
  __asm__ volatile("syscall"
                   : "=a"(fd)
                   : "0"((long)SYS_open), "D"(path), "S"((long)O_RDONLY)
                   : "rcx", "r11", "memory");
  return (int)fd;
#elif OPEN_WITH == 1
  pthread_t opener;
  void* file = 0;
  pthread_create(&opener, 0, (void* (*)(void*))tmpfile, 0);
  pthread_join(opener, &file);
  return file ? ((FILE*)file)->_fileno : -1;
#else
  FILE* file = fopen("/dev/null", "r");
  return file ? file->_fileno : -1;
#endif
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, take_turn, 0);
  const int fd = opened();
  assert(fd == first_free);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  return 0;
}
