/* litmus: the classic litmus shapes with relaxed atomics, one per -DSHAPE_<name>, for
 * bench/weak/run (each shape's outcomes under RC11 are checked in process by
 * tests/memory_model_oracle_test.cpp; here only the cost of exploring them is measured).
 *
 *   -DSHAPE_SB    store buffering      T0: x=1; r0=y        T1: y=1; r1=x
 *   -DSHAPE_MP    message passing      T0: x=1; y=1         T1: r0=y; r1=x
 *   -DSHAPE_LB    load buffering       T0: r0=x; y=1        T1: r1=y; x=1
 *   -DSHAPE_IRIW  independent reads    T0: x=1  T1: y=1  T2: r0=x; r1=y  T3: r2=y; r3=x
 *   -DSHAPE_WRC   write-read causality T0: x=1  T1: r0=x; y=1  T2: r1=y; r2=x
 *   -DSHAPE_2P2W  2+2W                 T0: x=1; y=2         T1: y=1; x=2
 *   -DSHAPE_R     R                    T0: x=1; y=1         T1: y=2; r0=x
 *   -DSHAPE_S     S                    T0: x=2; y=1         T1: r0=y; x=1
 *   -DORDER=...   the memory order of every access (default memory_order_relaxed)
 *   -DREPEAT=N    each thread does its part N times (default 1): more events, more graphs
 */
#include <pthread.h>
#include <stdatomic.h>

#ifndef ORDER
#define ORDER memory_order_relaxed
#endif
#ifndef REPEAT
#define REPEAT 1
#endif

static atomic_int x, y;
static int r[4];

#define ST(v, n) atomic_store_explicit(&(v), (n), ORDER)
#define LD(v) atomic_load_explicit(&(v), ORDER)

static void *t0(void *arg) {
  (void)arg;
  for (int i = 0; i < REPEAT; i++) {
#if defined SHAPE_SB
    ST(x, 1);
    r[0] = LD(y);
#elif defined SHAPE_MP || defined SHAPE_R
    ST(x, 1);
    ST(y, 1);
#elif defined SHAPE_LB
    r[0] = LD(x);
    ST(y, 1);
#elif defined SHAPE_IRIW || defined SHAPE_WRC
    ST(x, 1);
#elif defined SHAPE_2P2W
    ST(x, 1);
    ST(y, 2);
#elif defined SHAPE_S
    ST(x, 2);
    ST(y, 1);
#else
#error "name a shape: -DSHAPE_SB, -DSHAPE_MP, ..."
#endif
  }
  return 0;
}

static void *t1(void *arg) {
  (void)arg;
  for (int i = 0; i < REPEAT; i++) {
#if defined SHAPE_SB
    ST(y, 1);
    r[1] = LD(x);
#elif defined SHAPE_MP
    r[0] = LD(y);
    r[1] = LD(x);
#elif defined SHAPE_LB
    r[1] = LD(y);
    ST(x, 1);
#elif defined SHAPE_IRIW
    ST(y, 1);
#elif defined SHAPE_WRC
    r[0] = LD(x);
    ST(y, 1);
#elif defined SHAPE_2P2W
    ST(y, 1);
    ST(x, 2);
#elif defined SHAPE_R
    ST(y, 2);
    r[0] = LD(x);
#elif defined SHAPE_S
    r[0] = LD(y);
    ST(x, 1);
#endif
  }
  return 0;
}

static void *t2(void *arg) {
  (void)arg;
  for (int i = 0; i < REPEAT; i++) {
#if defined SHAPE_IRIW
    r[0] = LD(x);
    r[1] = LD(y);
#elif defined SHAPE_WRC
    r[1] = LD(y);
    r[2] = LD(x);
#endif
  }
  return 0;
}

static void *t3(void *arg) {
  (void)arg;
  for (int i = 0; i < REPEAT; i++) {
#if defined SHAPE_IRIW
    r[2] = LD(y);
    r[3] = LD(x);
#endif
  }
  return 0;
}

int main(void) {
  void *(*body[])(void *) = {t0, t1, t2, t3};
#if defined SHAPE_IRIW
  const int threads = 4;
#elif defined SHAPE_WRC
  const int threads = 3;
#else
  const int threads = 2;
#endif
  pthread_t t[4];
  for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, body[i], 0);
  for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
  return r[0] + r[1] + r[2] + r[3] == -1; /* uses the reads */
}
