// Runs one of libuv's own thread-pool tests (test/test-threadpool.c and
// test/test-threadpool-cancel.c of Debian's libuv1 source, which bench/real/run fetches and
// compiles beside this file): `libuv_test_runner NAME` returns what libuv's test returns (0 when
// it passes; a failed ASSERT aborts). libuv's own runner forks a process per test and adds
// timeouts; under weft each execution is one run of the test.
#include <stdio.h>
#include <string.h>

#define LIBUV_TESTS(X)            \
  X(threadpool_queue_work_simple) \
  X(threadpool_queue_work_einval) \
  X(threadpool_cancel_single)     \
  X(threadpool_cancel_work)       \
  X(threadpool_cancel_random)     \
  X(threadpool_cancel_fs)

#define DECLARE(name) int run_test_##name(void);
LIBUV_TESTS(DECLARE)

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: libuv_test_runner TEST\n");
    return 2;
  }
#define RUN(name) \
  if (strcmp(argv[1], #name) == 0) return run_test_##name();
  LIBUV_TESTS(RUN)
  fprintf(stderr, "libuv_test_runner: no test %s\n", argv[1]);
  return 2;
}
