// Thesis Fig. 2.3 (Example 2): x > y && x * y == 1452 && x / 2 == 5 is satisfiable with 32-bit
// integers, where the product overflows (x = 10, y = -858993314).
#include <weft/weft.h>

extern void reach_error(void);

int main(void) {
  int x = weft_input_int32("x");
  int y = weft_input_int32("y");
  if (x > y)
    if (x * y == 1452)
      if (x / 2 == 5) reach_error();
  return 0;
}
