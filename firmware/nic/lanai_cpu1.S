/* lanai_cpu1.S: where processor 1 of a two-processor card starts (nicd sets its pc to _start1,
 * found in the image's map; processor 0 starts at crt0's _start, address 0). Its stack is the
 * 16 KiB below processor 0's (the image reserves both: LANAI_STACK, firmware/nic/module.mk);
 * .bss is processor 0's to clear. Calls main_cpu1 (lanai_main.c) and parks if it returns. */

	.text
	.globl	_start1
	.type	_start1,@function
	.p2align 2
_start1:
	mov	hi(__stack_top), %sp
	or	%sp, lo(__stack_top), %sp
	sub	%sp, 0x4000, %sp
	mov	%sp, %fp
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	main_cpu1
	nop
.Lhalt1:
	bt	.Lhalt1
	nop
	.size	_start1, .-_start1
