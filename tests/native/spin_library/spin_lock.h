/* The interface of libspinlock.so (tests/native/spin_library). */
void spin_lock(int* lock);
void spin_unlock(int* lock);
