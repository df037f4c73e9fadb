// Inputs through the C library's string functions: the bug needs a command read from input
// bytes to be "stop" (strcmp), its argument to parse as 42 (atoi), and its length to be 4
// (strlen); a second thread races on `stopped`. Each function's model keeps the bytes symbolic.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

char command[8];
char argument[4];
int stopped;

void* controller(void* arg) {
  (void)arg;
  if (strlen(command) == 4 && strcmp(command, "stop") == 0 && atoi(argument) == 42) {
    stopped = 1;
    stopped = 2;
  }
  return 0;
}

void* observer(void* arg) {
  (void)arg;
  assert(stopped != 1);
  return 0;
}

int main(void) {
  weft_input_bytes(command, sizeof command - 1, "command");
  weft_input_bytes(argument, sizeof argument - 1, "argument");
  pthread_t a, b;
  pthread_create(&a, 0, controller, 0);
  pthread_create(&b, 0, observer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
