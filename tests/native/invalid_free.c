// free of a pointer into the middle of a block or (-DFREE_GLOBAL) of a global array.
#include <stdlib.h>

int table[4];

int main(void) {
  char *text = malloc(64);
  char *word = text + 8;
#ifdef FREE_GLOBAL
  (void)word;
  free(table);
#else
  free(word);
#endif
  return 0;
}
