// A syntax error: weft check must show clang's message and exit with 2.
int main(void) { return 0 }
