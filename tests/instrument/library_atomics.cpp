// The atomics of a library's internals (atomic_access_instrumenter.cpp): std::latch's count_down
// and the waiter count its notification reads come from libstdc++'s headers, inlined into main
// at -O0 too, and their kind carries WEFT_ATOMIC_IN_LIBRARY (8); the program's own relaxed
// fetch_add through <atomic> does not. Checked at -O0 and -O1 with the prefix CHECK, C++20; see
// CMakeLists.txt. (kind 2: a read-modify-write; ordering 2 monotonic, 5 release.)
#include <atomic>
#include <latch>

std::atomic<int> hits;
std::latch done(1);

// (At -O0 the orders come as a switch over each std::memory_order; the ones used are among them.)
// CHECK-LABEL: define {{.*}} @__weft_main()
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 2, i32 2), !dbg
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 10, i32 5), !dbg
int main() {
  hits.fetch_add(1, std::memory_order_relaxed);
  done.count_down();
  return 0;
}

// The notification's read of the waiter count: in libstdc++'s own function at -O0, inlined into
// main at -O1.
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 8, i32 7), !dbg
