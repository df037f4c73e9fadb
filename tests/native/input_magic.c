// Inputs: a bug that needs a 32-bit magic value and one interleaving (the reader between the
// writer's two writes).
#include <assert.h>
#include <pthread.h>
#include <weft/weft.h>

int state;
unsigned key;

void* writer(void* arg) {
  (void)arg;
  if (key == 0xC0FFEE42u) {
    state = 1;
    state = 2;
  }
  return 0;
}

void* reader(void* arg) {
  (void)arg;
  assert(state != 1);
  return 0;
}

int main(void) {
  key = weft_input_uint32("key");
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
