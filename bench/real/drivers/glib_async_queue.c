/* Two workers take jobs from a GAsyncQueue and count them in a GMutex-guarded counter; the main
 * thread pushes the jobs and then one stop marker per worker. Correct: every job is counted.
 * What weft should say: no bug (the counter's GMutex is modelled), and because GAsyncQueue
 * synchronises inside libglib, where weft cannot see, not "explored": the verdict names libglib. */
#include <glib.h>

#define JOBS 2
#define WORKERS 2
#define STOP GINT_TO_POINTER(-1)

static GAsyncQueue* jobs;
static GMutex lock;
static int done;

static gpointer worker(gpointer unused) {
  for (;;) {
    gpointer job = g_async_queue_pop(jobs);
    if (job == STOP) break;
    g_mutex_lock(&lock);
    done++;
    g_mutex_unlock(&lock);
  }
  return unused;
}

int main(void) {
  jobs = g_async_queue_new();
  GThread* threads[WORKERS];
  for (int i = 0; i < WORKERS; i++) threads[i] = g_thread_new("worker", worker, NULL);
  for (int i = 1; i <= JOBS; i++) g_async_queue_push(jobs, GINT_TO_POINTER(i));
  for (int i = 0; i < WORKERS; i++) g_async_queue_push(jobs, STOP);
  for (int i = 0; i < WORKERS; i++) g_thread_join(threads[i]);
  g_assert(done == JOBS);
  g_async_queue_unref(jobs);
  return 0;
}
