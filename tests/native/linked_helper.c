// Linked from a library given after `--` to weft check (tests/outside_code_e2e_test.cpp).
int helper_answer(void) {
  return 42;
}
