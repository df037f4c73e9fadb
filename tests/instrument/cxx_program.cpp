// A C++ program: std::atomic and a parameterless main. Checked at -O0 and -O1 with the prefixes
// CHECK (both), O0 and O1; see CMakeLists.txt.
#include <atomic>

std::atomic<int> hits;
struct Counter {
  long value = 0;
  void add(long n) { value += n; }
};
Counter counter;

// CHECK-LABEL: define {{.*}} i32 @__weft_main()
// O0: call {{.*}}@_ZNSt13__atomic_baseIiEppEv(
// O0: call {{.*}}@_ZN7Counter3addEl(
// O1: call void @__weft_atomic({{.*}}@hits{{.*}}, i64 4, i32 2, i32 7), !dbg
// O1-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// O1: atomicrmw add {{.*}}@hits{{.*}} seq_cst
// O1: call void @__weft_read({{.*}}@counter{{.*}}, i64 8), !dbg
// O1: call void @__weft_write({{.*}}@counter{{.*}}, i64 8), !dbg
// CHECK: ret i32
int main() {
  ++hits;
  counter.add(2);
  return 0;
}

// At -O0 the library's and the class's inline functions are instrumented where they are defined.
// O0-LABEL: define linkonce_odr {{.*}} @_ZNSt13__atomic_baseIiEppEv(
// O0: call void @__weft_atomic({{.*}}, i64 4, i32 2, i32 7), !dbg
// O0-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// O0: atomicrmw add {{.*}} seq_cst
// O0-LABEL: define linkonce_odr {{.*}} @_ZN7Counter3addEl(
// O0: call void @__weft_read({{.*}}, i64 8), !dbg
// O0: call void @__weft_write({{.*}}, i64 8), !dbg
// CHECK-NOT: define {{.*}} @main(
