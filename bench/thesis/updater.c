/* Updater 1 and 2: threads update shared values under two locks; others read them and act on
 * them.
 *
 * Follows Updater1.java and Updater2.java of the thesis' benchmarks. Thread 1 twice picks arr1
 * or arr2 by an input and sets it to an input; thread 2 once adds an input to one of them;
 * thread 3 and main (twice) take the two locks and clear values equal to an input. In Updater 1
 * all take lock1 then lock2, so there is no deadlock. In Updater 2 main takes lock2 then lock1,
 * and main and thread 3 deadlock if each takes its first lock (Table 8.2: Updater 2, deadlock,
 * SAT).
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Updater 1 and 2.
 * Parameters: -DVARIANT=N, N = 1 or 2 for Updater N (default 1). Reads inputs (the Java's
 * org.sedd.Input.generateInteger()).
 */
#ifndef VARIANT
#define VARIANT 1
#endif
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int arr1 = 0;
_Alignas(8) static int arr2 = 0;
_Alignas(8) static int arr3 = 0; /* declared, never used, as in the Java */
static pthread_mutex_t lock1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock2 = PTHREAD_MUTEX_INITIALIZER;

static void *thread1(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) {
    int selection = __VERIFIER_nondet_int();
    if (selection == 1) {
      pthread_mutex_lock(&lock1);
      arr1 = __VERIFIER_nondet_int();
      pthread_mutex_unlock(&lock1);
    } else {
      pthread_mutex_lock(&lock2);
      arr2 = __VERIFIER_nondet_int();
      pthread_mutex_unlock(&lock2);
    }
  }
  return 0;
}

static void *thread2(void *arg) {
  (void)arg;
  for (int i = 0; i < 1; i++) {
    int selection = __VERIFIER_nondet_int();
    if (selection == 1) {
      pthread_mutex_lock(&lock1);
      arr1 = arr1 + __VERIFIER_nondet_int();
      pthread_mutex_unlock(&lock1);
    } else {
      pthread_mutex_lock(&lock2);
      arr2 = arr2 + __VERIFIER_nondet_int();
      pthread_mutex_unlock(&lock2);
    }
  }
  return 0;
}

static void *thread3(void *arg) {
  (void)arg;
  int value = __VERIFIER_nondet_int();
  pthread_mutex_lock(&lock1);
  pthread_mutex_lock(&lock2);

  if (arr1 == value) {
    arr2 = arr2 * arr1;
    arr1 = 0;
  }

  if (arr2 == value)
    arr2 = 0;

  pthread_mutex_unlock(&lock2);
  pthread_mutex_unlock(&lock1);
  return 0;
}

int main(void) {
  pthread_t t1, t2, t3;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_create(&t3, 0, thread3, 0);

  for (int i = 0; i < 2; i++) {
    int value = __VERIFIER_nondet_int();
#if VARIANT == 2
    pthread_mutex_lock(&lock2);
    pthread_mutex_lock(&lock1);
#else
    pthread_mutex_lock(&lock1);
    pthread_mutex_lock(&lock2);
#endif

    if (arr1 == value) {
      arr2 = arr2 + arr1;
      arr1 = 0;
    }

    if (arr2 == value)
      arr2 = 0;

#if VARIANT == 2
    pthread_mutex_unlock(&lock1);
    pthread_mutex_unlock(&lock2);
#else
    pthread_mutex_unlock(&lock2);
    pthread_mutex_unlock(&lock1);
#endif
  }

#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the threads after main returns; joining last does the same. */
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  pthread_join(t3, 0);
  return 0;
}
