// Input bytes handed to a C library function weft has no model of (sscanf): it reads them as
// plain values, so the verdict cannot be "no bug"; it says the values were used unconstrained.
#include <stdio.h>
#include <weft/weft.h>

int main(void) {
  char text[4];
  weft_input_bytes(text, sizeof text - 1, "text");
  text[3] = 0;
  int n = 0;
  if (sscanf(text, "%d", &n) == 1 && n == 7) return 1;
  return 0;
}
