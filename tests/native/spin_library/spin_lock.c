/* A lock built from the library's own atomics, as Abseil's, GLib's or oneTBB's are: a
 * compare-and-swap loop. Built with a plain compiler, weft cannot see it (the library is named
 * in the verdict and the races it orders may be false); built by weft-lib, it is seen. */
#include "spin_lock.h"

void spin_lock(int* lock) {
  int expected = 0;
  while (!__atomic_compare_exchange_n(lock, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    expected = 0;
}

void spin_unlock(int* lock) {
  __atomic_store_n(lock, 0, __ATOMIC_SEQ_CST);
}
