// A read of the element before a heap array.
#include <stdlib.h>

int main(void) {
  long *values = calloc(8, sizeof *values);
  long *cursor = values + 2;
  long before = 0;
  for (int i = 0; i < 4; ++i) before += *cursor--;
  free(values);
  return (int)before;
}
