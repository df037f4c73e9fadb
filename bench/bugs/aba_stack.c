/* aba_stack: a Treiber lock-free stack with the ABA problem. The stack links NODES nodes of a
 * static pool by index; `top` is the index of the top node, swung by compare-and-swap. Each of
 * THREADS threads pops two nodes and pushes them back, the first one first; each of PEEKERS
 * threads looks at the top twice.
 *
 * Treiber's stack (IBM research report RJ 5118, 1986) and its well-known ABA problem, the
 * reason lock-free stacks tag their top with a counter. The bug: thread 1 reads top = A and
 * A's next = B in pop, and is preempted before its CAS; thread 2 pops A, pops B and pushes A
 * back; thread 1's CAS still sees top = A and succeeds, setting top to B, which thread 2
 * holds. Then B is popped twice (caught when a pop takes a node that is still held) or pushed
 * onto itself, and the nodes below it are lost (caught by main, which walks the stack at the
 * end). It needs two preemptions (thread 1 before its CAS, thread 2 between its push of A and
 * its push of B), three ordering constraints (PCT depth 3). The peekers take no part in the
 * bug, but every peek of `top` conflicts with every CAS on it, so they multiply the
 * interleavings a search has to get through; they are created last, where a depth-first
 * search backtracks first.
 *
 * The pool, not malloc and free: weft would report the reuse of a freed node as a use after
 * free, which is the same bug found another way.
 *
 *   -DTHREADS=N  the threads that pop and push (default 3)
 *   -DPEEKERS=P  the threads that only peek (default 2)
 *   -DNODES=M    the nodes, all on the stack at the start (default THREADS + 1)
 *   -DFIXED      top carries a version counter that every successful CAS bumps: no bug
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef PEEKERS
#define PEEKERS 2
#endif
#ifndef NODES
#define NODES (THREADS + 1)
#endif

#define EMPTY (-1)

struct node {
  atomic_int next; /* index of the node below, or EMPTY */
  atomic_int held; /* 1 while a thread has it popped */
};

static struct node pool[NODES];

/* top: the top node's index + 1 (0: empty) in the low 8 bits; with FIXED, a version counter
 * above them. */
static atomic_int top;

static int index_of(int word) { return (word & 0xff) - 1; }

static int with_index(int word, int index) {
#ifdef FIXED
  return ((word >> 8) + 1) << 8 | (index + 1);
#else
  (void)word;
  return index + 1;
#endif
}

static int pop(void) {
  int old = atomic_load(&top);
  int got;
  for (;;) {
    got = index_of(old);
    if (got == EMPTY) return EMPTY;
    int below = atomic_load(&pool[got].next);
    if (atomic_compare_exchange_strong(&top, &old, with_index(old, below))) break;
  }
  int was_held = atomic_exchange(&pool[got].held, 1);
  assert(!was_held && "popped a node another thread holds");
  return got;
}

static void push(int n) {
  atomic_store(&pool[n].held, 0);
  int old = atomic_load(&top);
  do {
    atomic_store(&pool[n].next, index_of(old));
  } while (!atomic_compare_exchange_strong(&top, &old, with_index(old, n)));
}

/* The index of the top node, or EMPTY. */
static int peek(void) { return index_of(atomic_load(&top)); }

static void *peeker(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) (void)peek();
  return 0;
}

static void *user(void *arg) {
  (void)arg;
  int a = pop();
  int b = pop();
  if (a != EMPTY) push(a);
  if (b != EMPTY) push(b);
  return 0;
}

int main(void) {
  _Static_assert(NODES < 255, "top keeps the index in 8 bits");
  for (int i = 0; i < NODES; i++) atomic_init(&pool[i].next, i - 1);
  atomic_init(&top, with_index(0, NODES - 1));
  pthread_t threads[THREADS + PEEKERS];
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], 0, user, 0);
  for (int i = 0; i < PEEKERS; i++) pthread_create(&threads[THREADS + i], 0, peeker, 0);
  for (int i = 0; i < THREADS + PEEKERS; i++) pthread_join(threads[i], 0);
  /* Every node is back: the stack holds each one once. */
  int seen[NODES] = {0}, count = 0;
  for (int n = peek(); n != EMPTY && count <= NODES; n = atomic_load(&pool[n].next)) {
    assert(!seen[n] && "a node is on the stack twice");
    seen[n] = 1;
    count++;
  }
  assert(count == NODES && "nodes were lost from the stack");
  return 0;
}
