// Peterson's lock with C11 atomics. With seq_cst (the default) it is correct. With RELEASE_ACQUIRE
// its stores are release and its loads acquire, which is broken on every x86 machine (a store may
// wait in the store buffer past the other thread's load) and under C11; weft explores sequential
// consistency only, so it finds no bug and its verdict must say so, naming the weak atomics.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef RELEASE_ACQUIRE
#define STORE memory_order_release
#define LOAD memory_order_acquire
#else
#define STORE memory_order_seq_cst
#define LOAD memory_order_seq_cst
#endif

atomic_int flag[2], turn;
int inside;

static void* run(void* arg) {
  const int me = (int)(long)arg, other = 1 - me;
  atomic_store_explicit(&flag[me], 1, STORE);
  atomic_store_explicit(&turn, other, STORE);
  while (atomic_load_explicit(&flag[other], LOAD) && atomic_load_explicit(&turn, LOAD) == other) {
  }
  assert(++inside == 1);
  --inside;
  atomic_store_explicit(&flag[me], 0, STORE);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, run, (void*)0L);
  pthread_create(&b, 0, run, (void*)1L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
