// Atomic instructions (atomic_access_instrumenter.cpp): __weft_atomic(addr, size, kind, ordering)
// with kind 0 load, 1 store, 2 rmw, 3 cmpxchg, 4 fence and the llvm::AtomicOrdering value
// (2 monotonic, 4 acquire, 5 release, 6 acq_rel, 7 seq_cst). Never also reported as plain.
// Checked at -O0 and -O1 with the prefix CHECK; see CMakeLists.txt.
#include <stdatomic.h>

atomic_int counter;
_Atomic long wide;
int plain;

// CHECK-LABEL: define {{.*}} @load_relaxed(
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic({{.*}}@counter{{.*}}, i64 4, i32 0, i32 2), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load atomic i32, {{.*}}@counter{{.*}} monotonic
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: ret i32
int load_relaxed(void) {
  return atomic_load_explicit(&counter, memory_order_relaxed);
}

// CHECK-LABEL: define {{.*}} @store_release(
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic({{.*}}@counter{{.*}}, i64 4, i32 1, i32 5), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store atomic i32 {{.*}}@counter{{.*}} release
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: ret void
void store_release(void) {
  atomic_store_explicit(&counter, 1, memory_order_release);
}

// CHECK-LABEL: define {{.*}} @fetch_add(
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic({{.*}}@wide{{.*}}, i64 8, i32 2, i32 7), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: atomicrmw add {{.*}}@wide{{.*}} seq_cst
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: ret i64
long fetch_add(void) {
  return atomic_fetch_add(&wide, 2);
}

// CHECK-LABEL: define {{.*}} @compare_exchange(
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic({{.*}}@counter{{.*}}, i64 4, i32 3, i32 6), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: cmpxchg {{.*}}@counter{{.*}} acq_rel acquire
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: ret
_Bool compare_exchange(int expected) {
  return atomic_compare_exchange_strong_explicit(&counter, &expected, 5, memory_order_acq_rel,
                                                 memory_order_acquire);
}

// CHECK-LABEL: define {{.*}} @fence(
// CHECK: call void @__weft_atomic({{.*}} null, i64 0, i32 4, i32 7), !dbg
// CHECK-NEXT: fence seq_cst
// CHECK: ret void
void fence(void) {
  atomic_thread_fence(memory_order_seq_cst);
}

// GCC-style builtins on a plain int are atomics too.
// CHECK-LABEL: define {{.*}} @builtin_exchange(
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic({{.*}}@plain{{.*}}, i64 4, i32 2, i32 4), !dbg
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: atomicrmw xchg {{.*}}@plain{{.*}} acquire
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: ret i32
int builtin_exchange(void) {
  return __atomic_exchange_n(&plain, 3, __ATOMIC_ACQUIRE);
}

// CHECK-DAG: declare void @__weft_atomic({{.*}} nocapture, i64, i32, i32)
