/* readers12: twelve readers and one writer of one shared int.
 *
 * main starts 12 reader threads, each reading x once (a plain read), and one writer thread that
 * writes x once, then joins all 13. The reads commute with each other and each conflicts with
 * the write only, so a Mazurkiewicz trace is fixed by which readers read before the write:
 * 2^12 = 4,096 traces (with every shared access a scheduling point, weft's --points=all).
 * A row of bench/speed/run (issue 13's speed table); GenMC's figure for it is 0.24 s.
 * Parameters: none. No inputs.
 */
#include <pthread.h>
#include <stdint.h>

#define READERS 12

/* weft tracks memory in 8-byte granules: x gets a granule of its own. */
_Alignas(8) static int x = 0;

static void *reader(void *arg) {
  (void)arg;
  int seen = x; /* the one read */
  return (void *)(intptr_t)seen;
}

static void *writer(void *arg) {
  (void)arg;
  x = 1; /* the one write */
  return 0;
}

int main(void) {
  pthread_t thread[READERS + 1];
  for (int t = 0; t < READERS; t++)
    pthread_create(&thread[t], 0, reader, 0);
  pthread_create(&thread[READERS], 0, writer, 0);
  for (int t = 0; t <= READERS; t++)
    pthread_join(thread[t], 0);
  return 0;
}
