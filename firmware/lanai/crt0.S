/* crt0 for LANai firmware images: the first code at SRAM address 0.
 * Sets sp/fp to the top of the SRAM budget (__stack_top, from lanai-ld), clears .bss
 * (the flat image holds text, rodata and data only, and SRAM is not zero after a reset),
 * calls main, and parks in a halt loop with main's return value left in rv (r8).
 * Its own section name makes lanai-ld place it first even after `ld.lld -r`. */

	.section .text.crt0,"ax",@progbits
	.globl	_start
	.type	_start,@function
	.p2align 2
_start:
	mov	hi(__stack_top), %sp
	or	%sp, lo(__stack_top), %sp
	mov	%sp, %fp
	mov	hi(__bss_start), %r3
	or	%r3, lo(__bss_start), %r3
	mov	hi(__bss_end), %r9
	or	%r9, lo(__bss_end), %r9
	/* lanai-ld word-aligns both ends of .bss. */
.Lclear:
	sub.f	%r3, %r9, %r0
	beq	.Lcall
	nop
	st	%r0, [%r3++]
	bt	.Lclear
	nop
.Lcall:
	/* The call sequence clang uses: push the return address (this + 16), branch. */
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	main
	nop
.Lhalt:
	bt	.Lhalt
	nop
	.size	_start, .-_start
