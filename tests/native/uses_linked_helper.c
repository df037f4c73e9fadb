// Calls a function from a static library given to `weft check` after `--`.
#include <assert.h>

int helper_answer(void);

int main(void) {
  assert(helper_answer() == 42);
  return 0;
}
