// The atomics of a library's internals (atomic_access_instrumenter.cpp): std::latch's count_down
// and the waiter count its notification reads come from libstdc++'s headers, inlined into main
// at -O0 too, and their kind carries WEFT_ATOMIC_IN_LIBRARY (8); the program's own relaxed
// fetch_add through <atomic> does not. Checked at -O0 and -O1 with the prefix CHECK (and O0),
// C++20; see CMakeLists.txt. (kind 2: a read-modify-write; ordering 2 monotonic, 5 release.)
#include <atomic>
#include <barrier>
#include <latch>

std::atomic<int> hits;
std::latch done(1);
std::barrier<> phase(1);

// (At -O0 the orders come as a switch over each std::memory_order; the ones used are among them.)
// CHECK-LABEL: define {{.*}} @__weft_main()
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 2, i32 2), !dbg
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 10, i32 5), !dbg
int main() {
  hits.fetch_add(1, std::memory_order_relaxed);
  done.count_down();
  phase.arrive_and_wait();
  return 0;
}

// The notification's read of the waiter count: in libstdc++'s own function at -O0, inlined into
// main at -O1.
// CHECK: call void @__weft_atomic({{.*}}, i64 4, i32 8, i32 7), !dbg

// At -O0 std::barrier calls <atomic>'s functions that are not inlined (__atomic_base's
// constructor, __atomic_ref's load and store): the calls are bracketed, so that the atomics they
// make are the library's.
// O0: call void @__weft_library_atomics(i32 1)
// O0-NEXT: call void @_ZNSt13__atomic_baseIlEC2El(
// O0-NEXT: call void @__weft_library_atomics(i32 0)
// O0: = call {{.*}} @_ZNKSt12__atomic_refIKSt17__barrier_phase_tLb0ELb0EE4loadESt12memory_order(
// O0: call void @__weft_library_atomics(i32 0)
