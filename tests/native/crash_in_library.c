// A crash inside the C library: the report names the library and the program's line that
// called into it, not "at ?".
#include <pthread.h>
#include <string.h>

static const char* volatile name;  // never set: the thread passes a null pointer to strlen

static void* measure(void* arg) {
  (void)arg;
  return (void*)strlen(name);
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, measure, 0);
  pthread_join(t, 0);
  return 0;
}
