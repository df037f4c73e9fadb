// A semaphore set again by sem_init after threads used it (unless -DONCE): the setting is no
// operation weft orders with the poster's, so no verdict may call the program explored, and the
// stateful strategies, whose states hold the count its operations made, must stop.
#include <pthread.h>
#include <semaphore.h>

static sem_t ready;

static void* poster(void* arg) {
  (void)arg;
  sem_post(&ready);
  sem_post(&ready);
  return 0;
}

int main(void) {
  sem_init(&ready, 0, 0);
  pthread_t t;
  pthread_create(&t, 0, poster, 0);
  sem_wait(&ready);
#ifndef ONCE
  sem_init(&ready, 0, 0);  // the poster may not have posted its second unit yet
#endif
  pthread_join(t, 0);
  return 0;
}
