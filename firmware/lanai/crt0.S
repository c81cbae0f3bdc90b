/* crt0 for LANai firmware images: the first code at SRAM address 0.
 * Sets sp/fp to the top of the SRAM budget (__stack_top, from lanai-ld), clears .bss
 * (the flat image holds text, rodata and data only, and SRAM is not zero after a reset),
 * calls main, and parks in a halt loop with main's return value left in rv (r8).
 * Its own section name makes lanai-ld place it first even after `ld.lld -r`. */

#include "lanai_entry.inc"

	.section .text.crt0,"ax",@progbits
	LANAI_ENTRY _start
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
	LANAI_CALL_AND_PARK main
	.size	_start, .-_start
