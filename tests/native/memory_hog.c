// Allocates and touches a gigabyte: the per-execution memory limit must stop it.
#include <stdlib.h>
#include <string.h>

int main(void) {
  for (int i = 0; i < 1024; ++i) {
    char* block = malloc(1 << 20);
    if (!block) return 1;
    memset(block, 1, 1 << 20);
  }
  return 0;
}
