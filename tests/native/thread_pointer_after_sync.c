// Thread-local storage and errno after synchronisation operations. A thread resumed in
// pthread_create, pthread_join, a mutex, condition, semaphore or spin lock operation called
// from code weft compiled goes on with the thread pointer the last thread left, and a new
// thread starts so, until its code asks for its own (RunLimits::lazy_thread_pointer). Each
// check below holds only if every access after such an operation reaches the thread's own
// storage; the last thread starts at a C library function, which reads its storage at once.
// Correct: no bug in any interleaving.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <unistd.h>

static __thread int mine;
static int* errno_of[4];  // each worker's errno, by address
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_spinlock_t spin;
static sem_t s;
static int arrived;  // guarded by m

static void* worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  mine = id;
  errno_of[id] = &errno;
  pthread_mutex_lock(&m);
  assert(mine == id);
  arrived += id;
  pthread_cond_broadcast(&c);
  assert(mine == id);
  while (arrived < 5) {
    pthread_cond_wait(&c, &m);
    assert(mine == id);
  }
  pthread_mutex_unlock(&m);
  assert(mine == id);
  sem_post(&s);
  sem_wait(&s);
  assert(mine == id);
  pthread_spin_lock(&spin);
  assert(mine == id);
  pthread_spin_unlock(&spin);
  assert(close(-1) == -1 && errno == EBADF && &errno == errno_of[id]);
  return (void*)(intptr_t)mine;
}

int main(void) {
  sem_init(&s, 0, 0);
  pthread_spin_init(&spin, 0);
  mine = 1;
  pthread_t t[3];
  for (int i = 0; i < 2; ++i) {
    pthread_create(&t[i], 0, worker, (void*)(intptr_t)(i + 2));
    assert(mine == 1);
  }
  // Starts at the C library's code, which returns the address of the thread's own errno.
  pthread_create(&t[2], 0, (void* (*)(void*))__errno_location, 0);
  assert(mine == 1);
  void* result[3];
  for (int i = 0; i < 3; ++i) {
    pthread_join(t[i], &result[i]);
    assert(mine == 1);
  }
  assert((intptr_t)result[0] == 2 && (intptr_t)result[1] == 3);
  assert(result[2] != (void*)&errno && result[2] != (void*)errno_of[2] &&
         result[2] != (void*)errno_of[3]);
  assert(sem_trywait(&s) == -1 && errno == EAGAIN);
  return 0;
}
