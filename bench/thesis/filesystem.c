/* Filesystem: threads allocate inodes and disk blocks under fine-grained locks.
 *
 * Follows FileSystem1.java / FileSystem2.java of the thesis' benchmarks (the file system
 * example of Flanagan and Godefroid, POPL 2005). Thread k works on inode i = k % 32: under
 * locki[i], if the inode has no block yet, it searches the blocks from b = (2i) % 26 upwards,
 * under lockb[b] each, for one that is not busy, takes it and stops. Threads i and i+13 start
 * at the same block, so with THREADS = 13 + c there are c contended pairs and 2^c traces.
 * The two Java files differ only in THREADS (18 and 20), while Table 8.1's rows are
 * Filesystem(16) and Filesystem(18).
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Filesystem(16), Filesystem(18).
 * Parameters: -DTHREADS=N, N = 16 and 18 for the table's rows (default 16). No inputs.
 */
#include <pthread.h>
#include <stdint.h>

#ifndef THREADS
#define THREADS 16
#endif

#define NUM_INODE 32
#define NUM_BLOCKS 26

/* Java's array elements are distinct locations; weft tracks memory in 8-byte granules, so each
 * element gets a granule of its own. */
static struct { _Alignas(8) int value; } inode[NUM_INODE];
static struct { _Alignas(8) _Bool value; } busy[NUM_BLOCKS];
static pthread_mutex_t locki[NUM_INODE];
static pthread_mutex_t lockb[NUM_BLOCKS];

static void *allocate(void *arg) {
  int i = (int)(intptr_t)arg;
  pthread_mutex_lock(&locki[i]);
  if (inode[i].value == 0) {
    int b = (i * 2) % NUM_BLOCKS;
    for (;;) {
      pthread_mutex_lock(&lockb[b]);
      if (!busy[b].value) {
        busy[b].value = 1;
        inode[i].value = b + 1;
        pthread_mutex_unlock(&lockb[b]); /* Java's break leaves the synchronized block */
        break;
      }
      pthread_mutex_unlock(&lockb[b]);
      b = (b + 1) % NUM_BLOCKS;
    }
  }
  pthread_mutex_unlock(&locki[i]);
  return 0;
}

int main(void) {
  pthread_t thread[THREADS];
  /* Java's static initializer: one lock object per inode and per block. */
  for (int i = 0; i < NUM_INODE; i++)
    pthread_mutex_init(&locki[i], 0);
  for (int b = 0; b < NUM_BLOCKS; b++)
    pthread_mutex_init(&lockb[b], 0);
  for (int k = 0; k < THREADS; k++)
    pthread_create(&thread[k], 0, allocate, (void *)(intptr_t)(k % NUM_INODE));
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the threads after main returns; joining last does the same. */
  for (int k = 0; k < THREADS; k++)
    pthread_join(thread[k], 0);
  return 0;
}
