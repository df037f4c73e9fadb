// Compiling weft's bitcode output again (here: with the plugin at -O0, twice) adds no second set
// of hooks. See CMakeLists.txt.
int shared;

// CHECK-LABEL: define {{.*}} @__VERIFIER_atomic_bump(
// CHECK: musttail call void @__VERIFIER_atomic_bump.weft_plain(
// CHECK-NEXT: ret void
// CHECK: call void @__weft_atomic_begin()
// CHECK-NEXT: call void @__weft_read(
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: load
// CHECK-NOT: call void @__weft_{{read|write|atomic_begin}}
// CHECK: add
// CHECK-NOT: call void @__weft_{{read|write|atomic_begin}}
// CHECK: call void @__weft_write(
// CHECK-NOT: call void @__weft_{{read|write|atomic|spin|asm}}
// CHECK: store
// CHECK-NOT: call void @__weft_{{read|write}}
// CHECK: call void @__weft_atomic_end()
// CHECK-NEXT: ret void
void __VERIFIER_atomic_bump(void) {
  shared++;
}
