; Atomic regions in shapes clang does not emit at -O0: several returns, and a musttail call, which
; must stay immediately before its return. Run through opt -passes=weft-instrument; see
; CMakeLists.txt.

; CHECK-LABEL: define i32 @__VERIFIER_atomic_pick(
; (Each function first runs its plain copy when inputs are not followed.)
; CHECK: musttail call i32 @__VERIFIER_atomic_pick.weft_plain(
; CHECK: entry:
; CHECK-NEXT: call void @__weft_atomic_begin()
; CHECK: yes:
; CHECK-NEXT: call void @__weft_atomic_end()
; (Visible outside its module: its own thread pointer before it returns.)
; CHECK-NEXT: [[RA1:%[0-9]+]] = call i8* @llvm.returnaddress(i32 0)
; CHECK-NEXT: call void @__weft_sync_thread_pointer_on_return(i8* [[RA1]])
; CHECK-NEXT: ret i32 1
; CHECK: no:
; CHECK-NEXT: call void @__weft_atomic_end()
; CHECK-NEXT: [[RA2:%[0-9]+]] = call i8* @llvm.returnaddress(i32 0)
; CHECK-NEXT: call void @__weft_sync_thread_pointer_on_return(i8* [[RA2]])
; CHECK-NEXT: ret i32 0
define i32 @__VERIFIER_atomic_pick(i1 %c) {
entry:
  br i1 %c, label %yes, label %no
yes:
  ret i32 1
no:
  ret i32 0
}

declare i32 @callee(i32)

; CHECK-LABEL: define i32 @__VERIFIER_atomic_forward(
; CHECK: musttail call i32 @__VERIFIER_atomic_forward.weft_plain(
; CHECK-NEXT: ret i32
; CHECK: call void @__weft_atomic_begin()
; (Only the argument's shadow expression is taken in between, and made concrete for the callee,
; which weft did not compile.)
; CHECK-NOT: call
; CHECK: call void @__weft_atomic_end()
; CHECK-NOT: call {{.*}}@callee
; CHECK: %r = musttail call i32 @callee(i32 %x)
; CHECK-NEXT: ret i32 %r
define i32 @__VERIFIER_atomic_forward(i32 %x) {
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}
