// weft_call_program(fn, a, b, c, base): calls fn(a, b, c) with the registers a callee must keep
// (rbx, r12-r15) cleared, and stores in *base the stack pointer under which the program's frames
// lie, setting it to 0 again when fn returns (local_state.hpp: a thread's state holds those
// registers and that stack, which would otherwise hold weft's own values for as long as the
// program does not use them). Keeps the caller's registers and has unwind information, so that
// exceptions (a pthread_exit) pass through it.
#if defined(__x86_64__)
        .text
        .globl  weft_call_program
        .hidden weft_call_program
        .type   weft_call_program, @function
weft_call_program:
        .cfi_startproc
        pushq   %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq   %rbx
        .cfi_offset %rbx, -24
        pushq   %r12
        .cfi_offset %r12, -32
        pushq   %r13
        .cfi_offset %r13, -40
        pushq   %r14
        .cfi_offset %r14, -48
        pushq   %r15
        .cfi_offset %r15, -56
        pushq   %r8                     // base, for after the call (16-byte aligned from here)
        movq    %rsp, (%r8)
        movq    %rdi, %rax
        movq    %rsi, %rdi
        movq    %rdx, %rsi
        movq    %rcx, %rdx
        xorl    %ebx, %ebx
        xorl    %r12d, %r12d
        xorl    %r13d, %r13d
        xorl    %r14d, %r14d
        xorl    %r15d, %r15d
        callq   *%rax
        popq    %r8
        movq    $0, (%r8)
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size   weft_call_program, .-weft_call_program

// weft_clear_dead_stack(floor): zeroes the stack below the caller's return address, down to 16 KiB
// below it but not below floor. Uses no stack of its own, so that it clears right up to its
// caller's frame.
        .globl  weft_clear_dead_stack
        .hidden weft_clear_dead_stack
        .type   weft_clear_dead_stack, @function
weft_clear_dead_stack:
        .cfi_startproc
        movq    %rsp, %rcx
        subq    $16384, %rcx
        cmpq    %rdi, %rcx
        cmovbq  %rdi, %rcx              // rcx = max(rsp - 16 KiB, floor): the lowest byte
        movq    %rsp, %rdx
        subq    %rcx, %rdx              // bytes up to the return address
        jbe     1f
        movq    %rcx, %rdi
        movq    %rdx, %rcx
        xorl    %eax, %eax
        cld
        rep stosb
1:      ret
        .cfi_endproc
        .size   weft_clear_dead_stack, .-weft_clear_dead_stack

        .section .note.GNU-stack,"",@progbits
#endif
