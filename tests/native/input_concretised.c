// Inputs used where weft cannot keep them symbolic: an array index (a pointer), the size of a
// stack array and a float. The values are used as they are, with a constraint where one can be
// kept, and the verdict says inputs were not all explored. No crash, no false "no bug".
#include <weft/weft.h>

int table[16];

int main(void) {
  unsigned i = weft_input_uint32("i") % 16;
  table[i] = 1;                            // a symbolic pointer: concretised
  unsigned n = weft_input_uint8("n") % 8 + 1;
  volatile char buffer[n];                 // a symbolic alloca size: concretised
  buffer[0] = 0;
  float f = (float)weft_input_int32("f");  // to floating point: concretised
  if (f > 1000.0f) table[0] = 2;
  return buffer[0];
}
