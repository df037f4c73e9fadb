// A crash on one input path, right after the branch that leads to it (no visible operation
// between them): the explorer must learn that branch from the crashing execution, or the test
// that flipped it looks divergent. Paths: v < 10, 10 <= v != 15, v == 15 (the crash).
#include <weft/weft.h>

int *volatile target;

int main(void) {
  int v = weft_input_int32("v");
  if (v >= 10) {
    if (v == 15) *target = 1;  // null dereference
  }
  return 0;
}
