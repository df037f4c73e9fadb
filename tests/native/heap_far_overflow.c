// A write 1 MiB past a 16-byte block: natively it crashes (SIGSEGV) every run.
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  (void)argv;
  char *name = malloc(16);
  memset(name, 'x', (size_t)(1 << 20) * (size_t)argc);
  free(name);
  return 0;
}
