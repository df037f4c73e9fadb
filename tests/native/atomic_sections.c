// Atomic sections (SV-COMP's begin/end blocks) with every access visible: each section is one
// event that depends only on what its accesses touch. t1 and t2 update i and j in sections that
// conflict with each other (i and j share a granule); t3's sections touch only `other`, so they
// commute with all of them, and main reads i after joining. -DNUM sets the sections per thread.
#include <pthread.h>

extern void __assert_fail(const char*, const char*, unsigned int, const char*);
void reach_error(void) {
  __assert_fail("0", "atomic_sections.c", 8, "reach_error");
}
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

#ifndef NUM
#define NUM 2
#endif

int i = 1, j = 1;
long padding[4];  // keeps `other` out of i's and j's granule
int other;

void* add_j_to_i(void* arg) {
  (void)arg;
  for (int k = 0; k < NUM; k++) {
    __VERIFIER_atomic_begin();
    i += j;
    __VERIFIER_atomic_end();
  }
  return 0;
}

void* add_i_to_j(void* arg) {
  (void)arg;
  for (int k = 0; k < NUM; k++) {
    __VERIFIER_atomic_begin();
    j += i;
    __VERIFIER_atomic_end();
  }
  return 0;
}

void* count_other(void* arg) {
  (void)arg;
  for (int k = 0; k < NUM; k++) {
    __VERIFIER_atomic_begin();
    other += 1;
    __VERIFIER_atomic_end();
  }
  return 0;
}

int main(void) {
  const int target = __VERIFIER_nondet_int();  // the value of i that counts as the bug
  pthread_t a, b, c;
  pthread_create(&a, 0, add_j_to_i, 0);
  pthread_create(&b, 0, add_i_to_j, 0);
  pthread_create(&c, 0, count_other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  if (i == target) reach_error();
  return 0;
}
