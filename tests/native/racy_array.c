// Three threads take a turn number under a lock and then write their own cell of an array
// and read the next one without a lock: the same two instructions race in every interleaving,
// on whichever cells the turns give. With --all-bugs that is one report with a count, not one
// per cell and order.
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int next_turn;
static int cells[3];

static void* take_turn(void* arg) {
  pthread_mutex_lock(&lock);
  const int mine = next_turn++;
  pthread_mutex_unlock(&lock);
  cells[mine] = 1;
  return (void*)(long)cells[(mine + 1) % 3];
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, take_turn, 0);
  pthread_create(&b, 0, take_turn, 0);
  take_turn(0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
