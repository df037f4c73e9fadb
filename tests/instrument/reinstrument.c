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
// Visible outside its module, it asks for its own thread pointer before it returns
// (thread_pointer_instrumenter.cpp).
// CHECK-NEXT: [[RA:%[0-9]+]] = call i8* @llvm.returnaddress(i32 0)
// CHECK-NEXT: call void @__weft_sync_thread_pointer_on_return(i8* [[RA]])
// CHECK-NEXT: ret void
void __VERIFIER_atomic_bump(void) {
  shared++;
}
