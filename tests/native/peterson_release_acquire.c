/* Peterson's lock written with release stores and acquire loads. Under sequential consistency
 * it excludes; on x86 each thread's store of its flag can wait in its store buffer while its
 * load of the other's flag goes ahead, so both enter (--memory-model=tso finds it). With
 * -DFENCED a seq_cst fence between the stores and the loads (x86: mfence) restores exclusion
 * on x86 but not in C/C++: under RC11 a thread can read the other's flag as 0 and still write
 * turn after the other thread did in coherence order, so both enter. With -DEXCHANGE turn is
 * written by an acq_rel exchange as well (Vyukov's Peterson for C++11), which RC11 excludes.
 * tests/memory_model_e2e_test.cpp. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int flag[2];
static atomic_int turn;
static atomic_int inside;

static void *worker(void *arg) {
  const int me = (int)(long)arg, other = 1 - me;
  atomic_store_explicit(&flag[me], 1, memory_order_release);
#ifdef EXCHANGE
  atomic_exchange_explicit(&turn, other, memory_order_acq_rel);
#else
  atomic_store_explicit(&turn, other, memory_order_release);
#endif
#if defined FENCED || defined EXCHANGE
  atomic_thread_fence(memory_order_seq_cst);
#endif
  while (atomic_load_explicit(&flag[other], memory_order_acquire) &&
         atomic_load_explicit(&turn, memory_order_acquire) == other) {
  }
  /* The critical section: no other thread may be in it. */
  const int others = atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed);
  assert(others == 0);
  atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
  atomic_store_explicit(&flag[me], 0, memory_order_release);
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return 0;
}
