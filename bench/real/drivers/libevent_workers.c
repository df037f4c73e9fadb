/* libevent's event loop (epoll) serving two worker threads: each worker adds its share to a
 * total under a pthread mutex and then writes one byte into its own socket pair, which the loop
 * watches; the loop's callbacks count the notifications and leave the loop after both, and main
 * checks the total. Correct; with TOTAL_AT_FIRST_NOTICE the loop wrongly expects the whole total
 * at the first notification (a worker may not have added its share yet). */
#include <assert.h>
#include <event2/event.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total, notified;
static struct event_base* loop;

struct worker {
  int share;
  int pair[2];
};

static void* work(void* arg) {
  struct worker* w = arg;
  pthread_mutex_lock(&lock);
  total += w->share;
  pthread_mutex_unlock(&lock);
  const char done = 1;
  assert(write(w->pair[1], &done, 1) == 1);
  return 0;
}

static void on_done(evutil_socket_t fd, short what, void* unused) {
  (void)what;
  (void)unused;
  char byte;
  assert(read(fd, &byte, 1) == 1);
#ifdef TOTAL_AT_FIRST_NOTICE
  pthread_mutex_lock(&lock);
  assert(total == 3);
  pthread_mutex_unlock(&lock);
#endif
  if (++notified == 2) event_base_loopexit(loop, 0);
}

int main(void) {
  loop = event_base_new();
  struct worker workers[2] = {{1, {0, 0}}, {2, {0, 0}}};
  struct event* events[2];
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) {
    assert(socketpair(AF_UNIX, SOCK_STREAM, 0, workers[i].pair) == 0);
    events[i] = event_new(loop, workers[i].pair[0], EV_READ | EV_PERSIST, on_done, 0);
    event_add(events[i], 0);
  }
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], 0, work, &workers[i]);
  event_base_dispatch(loop);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], 0);
  pthread_mutex_lock(&lock);
  assert(total == 3 && notified == 2);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 2; ++i) event_free(events[i]);
  event_base_free(loop);
  return 0;
}
