// SV-COMP conventions and main (atomic_region_instrumenter.cpp, reach_error_instrumenter.cpp,
// main_renamer.cpp). Checked at -O0 and -O1 with the prefixes CHECK (both), O0 and O1; see
// CMakeLists.txt.
extern void abort(void);

int tokens;

// Each function first runs its plain copy when inputs are not followed (symbolic_instrumenter.cpp).
// CHECK-LABEL: define {{.*}} @reach_error(
// CHECK: musttail call void @reach_error.weft_plain(
// CHECK: entry:
// CHECK-NEXT: call void @__weft_reach_error(){{.*}}, !dbg
void reach_error(void) {
  abort();
}

// The region brackets the body; the accesses inside are reported as usual.
// CHECK-LABEL: define {{.*}} @__VERIFIER_atomic_take(
// CHECK-NOT: call void @__weft
// CHECK: call void @__weft_atomic_begin(){{.*}}, !dbg
// CHECK: call void @__weft_read({{.*}}@tokens{{.*}}, i64 4), !dbg
// CHECK: call void @__weft_atomic_end(){{.*}}, !dbg
// Visible outside its module, it asks for its own thread pointer before it returns
// (thread_pointer_instrumenter.cpp).
// CHECK-NEXT: [[RA:%[0-9]+]] = call i8* @llvm.returnaddress(i32 0)
// CHECK-NEXT: call void @__weft_sync_thread_pointer_on_return(i8* [[RA]])
// CHECK-NEXT: ret i32
// CHECK-NEXT: }
int __VERIFIER_atomic_take(void) {
  if (tokens > 0) {
    tokens--;
    return 1;
  }
  return 0;
}

// Other functions get no region of their own. The hooks are inserted before optimisation, so at
// -O1 they are inlined with the body of __VERIFIER_atomic_take.
// CHECK-LABEL: define {{.*}} @take(
// O0-NOT: call void @__weft_atomic_{{begin|end}}
// O1: call void @__weft_atomic_begin(){{.*}}, !dbg
// O1: call void @__weft_read({{.*}}@tokens{{.*}}, i64 4), !dbg
// O1: call void @__weft_atomic_end(){{.*}}, !dbg
// CHECK: ret i32
int take(void) {
  return __VERIFIER_atomic_take();
}

// main becomes __weft_main, and is instrumented before it is renamed; its debug info still says
// main.
// CHECK-LABEL: define {{.*}} i32 @__weft_main(i32 {{.*}}, {{.*}})
// CHECK-SAME: !dbg ![[MAIN:[0-9]+]]
// CHECK: call void @__weft_write({{.*}}@tokens{{.*}}, i64 4), !dbg
// At -O1, reach_error is inlined together with its hook.
// O1: call void @__weft_reach_error(){{.*}}, !dbg
// (The C library's abort gets the thread's own thread pointer first.)
// O1-NEXT: call void @__weft_sync_thread_pointer()
// O1-NEXT: call void @abort()
// CHECK-NOT: define {{.*}} @main(
// CHECK: ![[MAIN]] = distinct !DISubprogram(name: "main"
int main(int argc, char** argv) {
  tokens = argc;
  while (take()) {
  }
  if (argv[0] == 0) reach_error();
  return 0;
}
