// Between a hook and its access only shadow-expression code (symbolic_instrumenter.cpp) may come:
// no other hook, hence the CHECK-NOT lines before each access.
// Plain loads, stores and memory intrinsics (shared_access_instrumenter.cpp). Checked at -O0 and
// -O1 with the prefixes CHECK (both), O0 and O1; see CMakeLists.txt.
#include <pthread.h>
#include <string.h>

typedef int v4i __attribute__((vector_size(16)));
struct pair {
  long a, b;
};

int shared_int;
int* shared_ptr;
v4i shared_vec;
volatile int shared_volatile;
struct pair shared_pair;
char shared_buf[64];
const int const_table[4] = {1, 2, 3, 4};
_Thread_local int per_thread;

// CHECK-LABEL: define {{.*}} @write_int(
// CHECK: call void @__weft_write({{.*}}@shared_int{{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store i32 1, {{.*}}@shared_int
void write_int(void) {
  shared_int = 1;
}

// CHECK-LABEL: define {{.*}} @read_int(
// CHECK: call void @__weft_read({{.*}}@shared_int{{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load i32, {{.*}}@shared_int
int read_int(void) {
  return shared_int;
}

// Pointers are 8 bytes.
// CHECK-LABEL: define {{.*}} @publish(
// CHECK: call void @__weft_write({{.*}}@shared_ptr{{.*}}, i64 8), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store {{.*}}@shared_ptr
void publish(int* p) {
  shared_ptr = p;
}

// CHECK-LABEL: define {{.*}} @vector_add(
// CHECK: call void @__weft_read({{.*}}@shared_vec{{.*}}, i64 16), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load <4 x i32>
// CHECK: call void @__weft_write({{.*}}@shared_vec{{.*}}, i64 16), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store <4 x i32>
void vector_add(void) {
  shared_vec += 1;
}

// Volatile accesses are plain accesses.
// CHECK-LABEL: define {{.*}} @volatile_write(
// CHECK: call void @__weft_write({{.*}}@shared_volatile{{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store volatile i32 2
void volatile_write(void) {
  shared_volatile = 2;
}

// Accesses through a pointer argument may be shared.
// CHECK-LABEL: define {{.*}} @worker(
// CHECK: call void @__weft_read({{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load i32
// CHECK: call void @__weft_write({{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store i32
void* worker(void* arg) {
  *(int*)arg += 1;
  return 0;
}

// Locals whose address never escapes are thread-private.
// CHECK-LABEL: define {{.*}} @private_locals(
// CHECK-NOT: call void @__weft_{{read|write|atomic}}
// CHECK: ret i32
int private_locals(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += i;
  return sum;
}

// However often it is used: LLVM's capture tracking gives up after 20 uses unless told otherwise.
#define ADD_N_4_TIMES sum += n, sum += n, sum += n, sum += n
// CHECK-LABEL: define {{.*}} @many_uses(
// CHECK-NOT: call void @__weft_{{read|write|atomic}}
// CHECK: ret i32
int many_uses(int n) {
  int sum = 0;
  ADD_N_4_TIMES;
  ADD_N_4_TIMES;
  ADD_N_4_TIMES;
  ADD_N_4_TIMES;
  ADD_N_4_TIMES;
  ADD_N_4_TIMES;
  return sum;
}

// A local whose address goes to another thread is shared.
// CHECK-LABEL: define {{.*}} @escaping_local(
// CHECK: call void @__weft_write({{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store i32 0, {{.*}}%local
// CHECK: call {{.*}}@pthread_create
// CHECK: call {{.*}}@pthread_join
// CHECK: call void @__weft_read({{.*}}, i64 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load i32, {{.*}}%local
int escaping_local(void) {
  int local = 0;
  pthread_t thread;
  pthread_create(&thread, 0, worker, &local);
  pthread_join(thread, 0);
  return local;
}

// Constant and thread_local globals are not shared.
// CHECK-LABEL: define {{.*}} @unshared_globals(
// CHECK-NOT: call void @__weft_{{read|write|atomic}}
// CHECK: ret i32
int unshared_globals(int i) {
  per_thread += const_table[i & 3];
  return per_thread;
}

// CHECK-LABEL: define {{.*}} @copy_pair(
// CHECK: call void @__weft_read_range({{.*}}, i64 16), !dbg
// CHECK-NEXT: call void @__weft_write_range({{.*}}@shared_pair{{.*}}, i64 16), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: call void @llvm.memcpy.
void copy_pair(struct pair* src) {
  shared_pair = *src;
}

// CHECK-LABEL: define {{.*}} @clear_buf(
// CHECK: call void @__weft_write_range({{.*}}@shared_buf{{.*}}, i64 %{{.*}}), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: call void @llvm.memset.
void clear_buf(unsigned long n) {
  memset(shared_buf, 0, n);
}

// CHECK-LABEL: define {{.*}} @shift_buf(
// CHECK: call void @__weft_read_range({{.*}}@shared_buf{{.*}}, i64 63), !dbg
// CHECK-NEXT: call void @__weft_write_range({{.*}}@shared_buf{{.*}}, i64 63), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: call void @llvm.memmove.
void shift_buf(void) {
  memmove(shared_buf, shared_buf + 1, 63);
}

// (Passing the array without the cast crashes clang 14.)
// CHECK-LABEL: define {{.*}} @copy_inline(
// CHECK: call void @__weft_read_range({{.*}}@shared_buf{{.*}}, i64 32), !dbg
// CHECK-NEXT: call void @__weft_write_range({{.*}}, i64 32), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: call void @llvm.memcpy.inline.
void copy_inline(char* dst) {
  __builtin_memcpy_inline(dst, (const void*)shared_buf, 32);
}

// Copies between private locals, and from constant initialisers, are not shared.
// CHECK-LABEL: define {{.*}} @private_copy(
// CHECK-NOT: call void @__weft_{{read|write|atomic}}
// CHECK: ret i64
long private_copy(void) {
  struct pair a = {1, 2}, b;
  b = a;
  return b.a;
}

// The runtime's own functions are left alone.
// CHECK-LABEL: define {{.*}} @__weft_helper(
// CHECK-NOT: call void @__weft_{{read|write|atomic}}
// CHECK: ret void
void __weft_helper(void) {
  shared_int = 3;
}

// Instrumentation runs after optimisation: at -O1, `v` is promoted to a register once bump() is
// inlined, so it is no longer a memory access. At -O0 its address escapes into bump().
static void bump(int* p) {
  *p += 1;
}
// O0-LABEL: define {{.*}} @promoted_local(
// O0: call void @__weft_write({{.*}}, i64 4), !dbg
// O0-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// O0: store i32 0, {{.*}}%v
// O1-LABEL: define {{.*}} @promoted_local(
// O1-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// O1: ret i32 1
int promoted_local(void) {
  int v = 0;
  bump(&v);
  return v;
}

// Hooks do not capture their pointer argument.
// CHECK-DAG: declare void @__weft_read({{.*}} nocapture, i64)
// CHECK-DAG: declare void @__weft_write({{.*}} nocapture, i64)
