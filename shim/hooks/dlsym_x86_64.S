/* dlsym_x86_64.S: the exported dlsym trampoline; see dlsym.c for why it must
 * jump (not call) to the real dlsym. */
#if defined(__x86_64__)
        .text
        .globl  dlsym
        .type   dlsym, @function
dlsym:
        .cfi_startproc
#if defined(__CET__)
        endbr64
#endif
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        pushq   %rsi
        .cfi_adjust_cfa_offset 8
        subq    $8, %rsp                 /* 16-byte alignment for the call */
        .cfi_adjust_cfa_offset 8
        call    ft_dlsym_route
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        testl   %eax, %eax
        jnz     1f
        jmp     *ft_real_dlsym(%rip)     /* the real dlsym sees our caller */
1:      jmp     ft_dlsym_hooked
        .cfi_endproc
        .size   dlsym, .-dlsym
        .section .note.GNU-stack,"",@progbits
#endif
