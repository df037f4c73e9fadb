/* work_stealing: a Chase-Lev work-stealing deque with the fence in take() missing. The owner
 * pushes ITEMS items at the bottom and then takes them back from the bottom; THIEVES threads
 * each try ITEMS times to steal one from the top, with a CAS on `top`. Every item must be
 * taken exactly once, by the owner or by one thief.
 *
 * After the work-stealing queue of the CHESS tests, in SCTBench (Thomson, Donaldson and
 * Betts, PPoPP 2014), and Chase and Lev (SPAA 2005). take() writes bottom = b (claiming item
 * b) and then reads top: if top < b, no thief can reach item b and the owner takes it without
 * a CAS. That needs a full fence between the write and the read; without it the read can be
 * satisfied before the write is visible (store buffering on x86 too). weft explores
 * sequential consistency only, so this file models the missing fence by the reordering it
 * allows: take() reads top first. The bug: the owner reads top, thieves steal every item
 * down to and including b while they still see the old bottom, and the owner then takes item
 * b as well, without a CAS: item b is taken twice. One preemption of the owner, between its
 * read of top and its write of bottom, with at least two items left; two ordering
 * constraints.
 *
 *   -DITEMS=N    the items (default 4)
 *   -DTHIEVES=M  the thieves (default 3)
 *   -DFIXED      take() writes bottom before it reads top, as with the fence: no bug
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef THIEVES
#define THIEVES 3
#endif

#define EMPTY (-1) /* nothing to take or steal */
#define ABORT (-2) /* a steal lost its CAS */

static atomic_int buffer[ITEMS]; /* the owner pushes ITEMS items, so no wrapping around */
static atomic_int top;           /* the next index to steal */
static atomic_int bottom;        /* the next index to push */
static atomic_int taken[ITEMS];  /* how often each item was taken */

static void push(int item) {
  int b = atomic_load(&bottom);
  atomic_store(&buffer[b], item);
  atomic_store(&bottom, b + 1);
}

static int take(void) {
  int b = atomic_load(&bottom) - 1;
#ifdef FIXED
  atomic_store(&bottom, b);
  int t = atomic_load(&top);
#else
  int t = atomic_load(&top); /* read before the write below is visible: no fence */
  atomic_store(&bottom, b);
#endif
  if (t > b) { /* empty */
    atomic_store(&bottom, b + 1);
    return EMPTY;
  }
  int item = atomic_load(&buffer[b]);
  if (t == b) { /* the last item: race the thieves for it */
    if (!atomic_compare_exchange_strong(&top, &t, t + 1)) item = EMPTY;
    atomic_store(&bottom, b + 1);
  }
  return item;
}

static int steal(void) {
  int t = atomic_load(&top);
  int b = atomic_load(&bottom);
  if (t >= b) return EMPTY;
  int item = atomic_load(&buffer[t]);
  if (!atomic_compare_exchange_strong(&top, &t, t + 1)) return ABORT;
  return item;
}

static void got(int item) {
  int before = atomic_fetch_add(&taken[item], 1);
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
  pthread_t threads[1 + THIEVES];
  pthread_create(&threads[0], 0, owner, 0);
  for (int i = 1; i <= THIEVES; i++) pthread_create(&threads[i], 0, thief, 0);
  for (int i = 0; i <= THIEVES; i++) pthread_join(threads[i], 0);
  for (int i = 0; i < ITEMS; i++) assert(atomic_load(&taken[i]) == 1 && "an item was lost");
  return 0;
}
