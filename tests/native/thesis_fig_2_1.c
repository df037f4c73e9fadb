// Thesis Fig. 2.1: the loop reads an input twice; error() is reached when x + 5 == i. The first
// test (inputs 0) takes both false branches; negating the last constraint gives the second test,
// which reaches it (Example 1).
#include <weft/weft.h>

extern void reach_error(void);

int main(void) {
  int i = 0;
  while (i < 2) {
    int x = weft_input_int32("x");
    x = x + 5;
    if (x == i) reach_error();
    i = i + 1;
  }
  return 0;
}
