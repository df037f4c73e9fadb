/* libuv's event loop: a worker thread wakes the loop with uv_async_send (an eventfd written in
 * one thread, read by the loop's epoll in another) after setting a flag. Correct. weft does not
 * model epoll or eventfds yet: what it should say is that the program called epoll_wait, which
 * weft does not model (exit 2), never a time-out blamed on the program. */
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
