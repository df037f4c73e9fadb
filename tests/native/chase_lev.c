/* A Chase-Lev work-stealing deque with its fences as C11 code writes them (after Lê, Pop, Cohen
 * and Zappa Nardelli, "Correct and efficient work-stealing for weak memory models", PPoPP 2013):
 * relaxed accesses, a seq_cst fence in take() between the write of bottom and the read of top,
 * and one in steal() between its reads. The owner pushes ITEMS items and takes them back; a thief
 * tries to steal ITEMS times. Each item must be taken exactly once.
 *
 * Without take()'s fence (-DNO_TAKE_FENCE), x86 keeps the write of bottom in the owner's store
 * buffer while it reads top: the owner takes item b without a CAS while the thief, still seeing
 * the old bottom, steals it too. Under sequential consistency both versions are correct.
 * tests/memory_model_e2e_test.cpp. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITEMS
#define ITEMS 2
#endif
#define EMPTY (-1)

static atomic_int buffer[ITEMS];
static atomic_int top, bottom;
static atomic_int taken[ITEMS];

static void push(int item) {
  int b = atomic_load_explicit(&bottom, memory_order_relaxed);
  atomic_store_explicit(&buffer[b], item, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
}

static int take(void) {
  int b = atomic_load_explicit(&bottom, memory_order_relaxed) - 1;
  atomic_store_explicit(&bottom, b, memory_order_relaxed);
#ifndef NO_TAKE_FENCE
  atomic_thread_fence(memory_order_seq_cst);
#endif
  int t = atomic_load_explicit(&top, memory_order_relaxed);
  if (t > b) { /* empty */
    atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
    return EMPTY;
  }
  int item = atomic_load_explicit(&buffer[b], memory_order_relaxed);
  if (t == b) { /* the last item: race the thief for it */
    if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
      item = EMPTY;
    atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
  }
  return item;
}

static int steal(void) {
  int t = atomic_load_explicit(&top, memory_order_acquire);
  atomic_thread_fence(memory_order_seq_cst);
  int b = atomic_load_explicit(&bottom, memory_order_acquire);
  if (t >= b) return EMPTY;
  int item = atomic_load_explicit(&buffer[t], memory_order_relaxed);
  if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst,
                                               memory_order_relaxed))
    return EMPTY;
  return item;
}

static void got(int item) {
  int before = atomic_fetch_add_explicit(&taken[item], 1, memory_order_relaxed);
  assert(before == 0 && "an item was taken twice");
}

static void *owner(void *arg) {
  (void)arg;
  for (int i = 0; i < ITEMS; i++) push(i);
  for (int item; (item = take()) != EMPTY;) got(item);
  return 0;
}

static void *thief(void *arg) {
  (void)arg;
  for (int i = 0; i < ITEMS; i++) {
    int item = steal();
    if (item >= 0) got(item);
  }
  return 0;
}

int main(void) {
  pthread_t threads[2];
  pthread_create(&threads[0], 0, owner, 0);
  pthread_create(&threads[1], 0, thief, 0);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], 0);
  for (int i = 0; i < ITEMS; i++) assert(atomic_load(&taken[i]) == 1 && "an item was lost");
  return 0;
}
