/* libuv's thread pool: uv_queue_work runs each work callback on a pool thread, and the loop runs
 * its after-work callback once the work is done (the pool wakes the loop with uv_async_send, an
 * eventfd the loop's epoll watches). Two jobs add to a total under a uv_mutex_t; the loop checks
 * the total once both are done. Correct. */
#include <assert.h>
#include <stdlib.h>
#include <uv.h>

static uv_mutex_t lock;
static int total, done;

static void work(uv_work_t* job) {
  uv_mutex_lock(&lock);
  total += *(int*)job->data;
  uv_mutex_unlock(&lock);
}

static void after(uv_work_t* job, int status) {
  (void)job;
  assert(status == 0);
  if (++done < 2) return;
  uv_mutex_lock(&lock);
  assert(total == 3);
  uv_mutex_unlock(&lock);
}

int main(void) {
  setenv("UV_THREADPOOL_SIZE", "2", 1);
  uv_loop_t* loop = uv_default_loop();
  uv_mutex_init(&lock);
  static int one = 1, two = 2;
  static uv_work_t a, b;
  a.data = &one;
  b.data = &two;
  uv_queue_work(loop, &a, work, after);
  uv_queue_work(loop, &b, work, after);
  uv_run(loop, UV_RUN_DEFAULT);
  assert(done == 2);
  return 0;
}
