/* lanai_cpu1.S: where processor 1 of a two-processor card starts (nicd sets its pc to _start1,
 * found in the image's map; processor 0 starts at crt0's _start, address 0). Its stack is the
 * 16 KiB below processor 0's (the image reserves both: LANAI_STACK, firmware/nic/module.mk);
 * .bss is processor 0's to clear. Calls main_cpu1 (lanai_main.c) and parks if it returns. */

#include "../lanai/lanai_entry.inc"

	.text
	LANAI_ENTRY _start1
	sub	%sp, 0x4000, %sp
	mov	%sp, %fp
	LANAI_CALL_AND_PARK main_cpu1
	.size	_start1, .-_start1
