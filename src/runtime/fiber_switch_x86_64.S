// weft_fiber_switch(void** save_sp, void* load_sp): saves the callee-saved registers and the
// floating-point control words on the current stack, stores the stack pointer to *save_sp,
// loads load_sp and restores the same from there (System V x86-64 ABI).
#if defined(__x86_64__)
        .text
        .globl  weft_fiber_switch
        .type   weft_fiber_switch, @function
weft_fiber_switch:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $16, %rsp
        stmxcsr 8(%rsp)
        fnstcw  (%rsp)
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        ldmxcsr 8(%rsp)
        fldcw   (%rsp)
        addq    $16, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   weft_fiber_switch, .-weft_fiber_switch

// First code a new fiber runs: r12 = entry, r13 = argument. The stack is 16-byte aligned here.
        .globl  weft_fiber_trampoline
        .type   weft_fiber_trampoline, @function
weft_fiber_trampoline:
        movq    %r13, %rdi
        callq   *%r12
        ud2
        .size   weft_fiber_trampoline, .-weft_fiber_trampoline
#endif
        .section .note.GNU-stack,"",@progbits
