// Calls of C library functions in code that follows inputs (library_calls.cpp,
// symbolic_instrumenter.cpp): a function weft has a model of is replaced by the model there,
// and stays itself in the plain copy; one without a model gets its pointer arguments checked;
// the runtime's own functions and output are left alone.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

char text[16];
int number;

// CHECK-LABEL: define {{.*}} @lengths(
// CHECK-NOT: call {{.*}} @strlen(
// CHECK: call {{.*}} @__weft_model_strlen({{.*}}@text
// CHECK-NOT: call {{.*}} @strlen(
// CHECK: ret
unsigned long lengths(void) {
  return strlen(text);
}

// CHECK-LABEL: define {{.*}} @parse(
// CHECK: call void @__weft_sym_unmodelled({{.*}}@text{{.*}}, i64
// CHECK: call {{.*}} @__isoc99_sscanf(
// CHECK-NOT: @__weft_sym_unmodelled
// CHECK: call {{.*}} @{{printf|puts}}(
// CHECK: ret
int parse(void) {
  int read = sscanf(text, "%d", &number);
  printf("%s\n", text);
  return read;
}

static void* body(void* arg) {
  return arg;
}

// CHECK-LABEL: define {{.*}} @start(
// CHECK-NOT: @__weft_sym_unmodelled
// CHECK: ret
void start(pthread_t* thread) {
  pthread_create(thread, 0, body, text);
}

// The plain copy calls the C library's function.
// CHECK-LABEL: define internal {{.*}} @lengths.weft_plain(
// CHECK: call {{.*}} @strlen(
