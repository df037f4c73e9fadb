// One element past the end of a heap array (natively silent; AddressSanitizer reports it).
#include <stdlib.h>

int main(void) {
  int *counts = malloc(4 * sizeof *counts);
  for (int i = 0; i <= 4; ++i) counts[i] = i;
  int sum = counts[0] + counts[3];
  free(counts);
  return sum == 3 ? 0 : 1;
}
