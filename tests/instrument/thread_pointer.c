// Where instrumented code asks for its thread's own thread pointer (thread_pointer_instrumenter.cpp):
// the runtime leaves %fs as the last thread left it when a thread resumes inside an access hook.
// Checked in each function's plain copy (the one that runs when no input is followed).
#include <pthread.h>
#include <stdio.h>

static __thread int counter;
int shared;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int helper(int x) {
  return x + 1;
}

// A call to the C library (errno is the thread's) asks first; the access hook does not.
// CHECK-LABEL: define internal i32 @calls_outside.weft_plain(
// CHECK-NOT: call void @__weft_sync_thread_pointer
// CHECK: call void @__weft_write(
// CHECK-NOT: call void @__weft_sync_thread_pointer
// CHECK: store i32 1, i32* @shared
// CHECK-NEXT: call void @__weft_sync_thread_pointer()
// CHECK-NEXT: call i32 @puts(
// Visible outside the module (through its entry, whose musttail call lands here), it asks before
// it returns, unless it returns into the executable.
// CHECK-NEXT: [[RA:%[0-9]+]] = call i8* @llvm.returnaddress(i32 0)
// CHECK-NEXT: call void @__weft_sync_thread_pointer_on_return(i8* [[RA]])
// CHECK-NEXT: ret i32
int calls_outside(void) {
  shared = 1;
  return puts("x");
}

// A function of the module asks for itself where it needs to: no request before calling it.
// CHECK-LABEL: define internal i32 @calls_inside.weft_plain(
// CHECK-NOT: call void @__weft_sync_thread_pointer
// CHECK: call i32 @helper(
// CHECK-NOT: call void @__weft_sync_thread_pointer()
// CHECK: call void @__weft_sync_thread_pointer_on_return(
// CHECK-NEXT: ret i32
int calls_inside(void) {
  shared = 2;
  return helper(shared);
}

// A function that uses a thread-local variable asks at its entry and after each call, each
// request ending its block, so that no thread-local address is computed from a stale %fs.
// CHECK-LABEL: define internal i32 @uses_thread_local.weft_plain(
// CHECK-NEXT: entry:
// CHECK-NEXT: call void @__weft_sync_thread_pointer()
// CHECK-NEXT: br label
// CHECK: call void @__weft_write(
// CHECK-NEXT: call void @__weft_sync_thread_pointer()
// CHECK-NEXT: br label
// CHECK: call void @__weft_read(
// CHECK-NEXT: call void @__weft_sync_thread_pointer()
// CHECK-NEXT: br label
// CHECK: store i32 {{.*}}, i32* @counter
int uses_thread_local(void) {
  shared = 3;
  counter = shared;
  return counter;
}

// A call to a C library function whose model in the runtime needs no thread pointer
// (lazy_thread_pointer_calls.hpp: locks, conditions, semaphores, create, join) does not ask
// first; a call to another one does.
// CHECK-LABEL: define internal void @locks.weft_plain(
// CHECK-NOT: call void @__weft_sync_thread_pointer()
// CHECK: call i32 @pthread_mutex_lock(
// CHECK-NOT: call void @__weft_sync_thread_pointer()
// CHECK: call i32 @pthread_mutex_unlock(
// CHECK-NEXT: call void @__weft_sync_thread_pointer()
// CHECK-NEXT: call i32 @puts(
void locks(void) {
  pthread_mutex_lock(&lock);
  shared = 4;
  pthread_mutex_unlock(&lock);
  puts("y");
}
