// A counter guarded by GLib's GMutex, which locks with GLib's own atomics inside libglib (not
// built by weft-cc): weft does not see that synchronisation, so it must not call the program
// explored, and the races it reports without it may be false. With NO_LOCK the race is real.
#include <glib.h>

static GMutex lock;
static int counter;

static gpointer bump(gpointer unused) {
#ifndef NO_LOCK
  g_mutex_lock(&lock);
#endif
  counter++;
#ifndef NO_LOCK
  g_mutex_unlock(&lock);
#endif
  return unused;
}

int main(void) {
  GThread* other = g_thread_new("other", bump, NULL);
  bump(NULL);
  g_thread_join(other);
  g_assert(counter == 2);
  return 0;
}
