// Every input path through the models of strlen and strcmp, each once: strlen of three input
// bytes has four (lengths 0 to 3), strcmp of three others with "ab" four (a mismatch at each of
// the three bytes, or equal): 16 in all.
#include <assert.h>
#include <string.h>
#include <weft/weft.h>

int main(void) {
  char s[4], t[4];
  weft_input_bytes(s, 3, "s");
  weft_input_bytes(t, 3, "t");
  s[3] = t[3] = 0;
  const size_t n = strlen(s);
  const int c = strcmp(t, "ab");
  assert(n <= 3);
  assert((c == 0) == (t[0] == 'a' && t[1] == 'b' && t[2] == 0));
  return 0;
}
