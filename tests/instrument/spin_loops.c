// Which loops get the busy-wait hooks (spin_loop_instrumenter.cpp). Checked at -O0 with the
// prefix CHECK; see CMakeLists.txt.

int flag;
int table[64];

// A loop that may leave memory as it found it, re-reading a shared flag: a busy-wait candidate.
// CHECK-LABEL: define {{.*}} @wait_for_flag(
// CHECK: call void @__weft_spin_enter(i32 0)
// CHECK: call void @__weft_spin_back_edge(i32 0)
// CHECK: call void @__weft_spin_exit(i32 0)
void wait_for_flag(void) {
  while (flag == 0) {
  }
}

// A wait that traps when it sees a value it should not: __builtin_trap (llvm.trap) does not
// return, so like a call to abort() it ends the iteration and the loop stays a candidate.
// CHECK-LABEL: define {{.*}} @wait_or_trap(
// CHECK: call void @__weft_spin_enter(i32 0)
// CHECK: call void @__weft_spin_back_edge(i32 0)
void wait_or_trap(void) {
  while (flag != 1) {
    if (flag == 2) __builtin_trap();
  }
}

// A counted loop over shared memory: its counter, a local in memory at -O0, changes in every
// iteration, so no iteration can be a busy-wait's, and it gets no spin hooks (its reads of the
// table are still hooked as accesses).
// CHECK-LABEL: define {{.*}} @sum_table(
// CHECK-NOT: call void @__weft_spin
// CHECK: call void @__weft_read(
// CHECK-NOT: call void @__weft_spin
// CHECK: ret i32
int sum_table(void) {
  int sum = 0;
  for (int i = 0; i < 64; i++) sum += table[i];
  return sum;
}

// A pointer stepped through an array in every iteration: the same.
// CHECK-LABEL: define {{.*}} @sum_through_pointer(
// CHECK-NOT: call void @__weft_spin
// CHECK: ret i32
int sum_through_pointer(const int* p, const int* end) {
  int sum = 0;
  while (p != end) {
    sum += *p;
    p++;
  }
  return sum;
}

// A counter stepped only on some iterations does not rule the loop out: an iteration that does
// not step it may change nothing.
// CHECK-LABEL: define {{.*}} @wait_counting_some(
// CHECK: call void @__weft_spin_back_edge(
// CHECK: ret i32
int wait_counting_some(void) {
  int seen = 0;
  while (flag == 0) {
    if (table[0] != 0) seen++;
  }
  return seen;
}
