// Input bytes in a heap block that realloc moves keep their expressions in the new block.
#include <assert.h>
#include <stdlib.h>
#include <weft/weft.h>

int main(void) {
  unsigned char* r = malloc(2);
  weft_input_bytes(r, 2, "moved");
  r = realloc(r, 4096);
  assert(r[1] != 'k');
  free(r);
  return 0;
}
