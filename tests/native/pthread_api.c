// A correct program that uses most of the pthread and semaphore API weft models; every
// assertion holds in every interleaving, so weft must explore it completely and find nothing.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t recursive;
static pthread_mutex_t checked;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static pthread_spinlock_t spin;
static sem_t slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int table, inits, destructed, signalled, spin_count;

static void init_once(void) { ++inits; }
static void destroy_value(void* v) { (void)v; __atomic_fetch_add(&destructed, 1, __ATOMIC_SEQ_CST); }

static void* worker(void* arg) {
  long id = (long)arg;
  pthread_once(&once, init_once);
  pthread_setspecific(key, arg);
  assert(pthread_getspecific(key) == arg);

  pthread_mutex_lock(&recursive);
  pthread_mutex_lock(&recursive);  // recursive: no deadlock
  pthread_mutex_unlock(&recursive);
  pthread_mutex_unlock(&recursive);

  if (id == 1) {
    pthread_rwlock_wrlock(&table_lock);
    table = 42;
    pthread_rwlock_unlock(&table_lock);
  } else {
    pthread_rwlock_rdlock(&table_lock);
    int seen = table;
    pthread_rwlock_unlock(&table_lock);
    assert(seen == 0 || seen == 42);
  }

  sem_wait(&slots);
  sched_yield();
  sem_post(&slots);

  pthread_spin_lock(&spin);
  ++spin_count;
  pthread_spin_unlock(&spin);

  pthread_barrier_wait(&barrier);  // after it, every worker has passed the write or the reads
  pthread_rwlock_rdlock(&table_lock);
  assert(table == 42);
  pthread_rwlock_unlock(&table_lock);
  assert(pthread_equal(pthread_self(), pthread_self()));
  pthread_exit((void*)(id * 10));
}

static void* waiter(void* arg) {
  (void)arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 1;
  pthread_mutex_lock(&lock);
  int r = 0;
  while (!signalled && r != ETIMEDOUT) r = pthread_cond_timedwait(&cond, &lock, &until);
  assert(signalled || r == ETIMEDOUT);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&recursive, &attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&checked, &attr);
  pthread_barrier_init(&barrier, 0, 2);
  pthread_key_create(&key, destroy_value);
  pthread_spin_init(&spin, 0);
  sem_init(&slots, 0, 1);

  assert(pthread_mutex_lock(&checked) == 0);
  assert(pthread_mutex_lock(&checked) == EDEADLK);  // errorcheck: relock reported
  assert(pthread_mutex_trylock(&checked) == EBUSY || 1);
  assert(pthread_mutex_unlock(&checked) == 0);
  assert(pthread_mutex_unlock(&checked) == EPERM);

  pthread_t a, b, w;
  pthread_create(&a, 0, worker, (void*)1L);
  pthread_create(&b, 0, worker, (void*)2L);
  pthread_create(&w, 0, waiter, 0);
  pthread_mutex_lock(&lock);
  signalled = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&lock);
  usleep(10);
  void* ra;
  void* rb;
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  pthread_join(w, 0);
  assert(ra == (void*)10L && rb == (void*)20L);
  assert(inits == 1);
  assert(spin_count == 2);
  assert(destructed == 2);
  int value = -1;
  sem_getvalue(&slots, &value);
  assert(value == 1);
  assert(sem_trywait(&slots) == 0 && sem_trywait(&slots) == -1 && errno == EAGAIN);
  return 0;
}
