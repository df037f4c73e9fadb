/* libuv's event loop: a worker thread wakes the loop with uv_async_send (an eventfd written in
 * one thread, read by the loop's epoll in another) after setting a flag. Correct: the eventfd
 * orders the flag's write before the callback's read (weft's channels). Before weft modelled
 * channels, the run stopped at the loop's epoll_wait (exit 2). */
#include <assert.h>
#include <uv.h>

static uv_async_t wake;
static int ready;

static void on_wake(uv_async_t* handle) {
  assert(ready == 1);
  uv_close((uv_handle_t*)handle, NULL);
}

static void work(void* unused) {
  (void)unused;
  ready = 1;
  uv_async_send(&wake);
}

int main(void) {
  uv_loop_t* loop = uv_default_loop();
  uv_async_init(loop, &wake, on_wake);
  uv_thread_t worker;
  uv_thread_create(&worker, work, NULL);
  uv_run(loop, UV_RUN_DEFAULT);
  uv_thread_join(&worker);
  return 0;
}
