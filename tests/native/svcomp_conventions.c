// SV-COMP's conventions: reach_error() is the violation, abort() and assume discard a path,
// __VERIFIER_atomic_* functions run without interleaving, __VERIFIER_nondet_* are inputs (explored;
// weft's --nondet fixes them).
#include <pthread.h>

extern void abort(void);
extern void __assert_fail(const char*, const char*, unsigned int, const char*);
void reach_error(void) { __assert_fail("0", "svcomp_conventions.c", 9, "reach_error"); }
void assume_abort_if_not(int cond) {
  if (!cond) abort();
}
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x;
int limit;

// Two steps that no other thread may see half done.
void __VERIFIER_atomic_add_two(void) {
  x = x + 1;
  x = x + 1;
}

void* adder(void* arg) {
  (void)arg;
  __VERIFIER_atomic_add_two();
  return 0;
}

void* observer(void* arg) {
  (void)arg;
  __VERIFIER_atomic_begin();
  int seen = x;
  __VERIFIER_atomic_end();
  if (seen % 2 != 0) reach_error();  // never: x is only ever seen even
  if (limit > 0 && seen == limit) reach_error();  // reachable when the input is 2 or 4
  return 0;
}

int main(void) {
  limit = __VERIFIER_nondet_int();
  assume_abort_if_not(limit != 3);  // input 3 is ruled out: every path is discarded
  pthread_t a, b, o;
  pthread_create(&a, 0, adder, 0);
  pthread_create(&b, 0, adder, 0);
  pthread_create(&o, 0, observer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(o, 0);
  return 0;
}
