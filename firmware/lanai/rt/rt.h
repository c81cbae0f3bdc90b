/* The freestanding LANai runtime: the libcalls clang emits for a core with no multiply,
 * divide or FPU, plus the four mem* functions struct copies need.
 *
 * On LANai the functions carry their real names. Built natively (for the host unit tests)
 * they are renamed to lanai_<name> so they cannot clash with libc or libgcc.
 *
 * Division by zero is undefined in C; these routines still return something fixed:
 * unsigned x / 0 is all ones, signed x / 0 is -1 for x >= 0 and 1 for x < 0, and x % 0 is x.
 * INT_MIN / -1 wraps to INT_MIN (and INT_MIN % -1 is 0); likewise for 64 bits. */
#ifndef LANAI_RT_H
#define LANAI_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __lanai__
#define RT(name) name
#else
#define RT(name) lanai_##name
#endif

/* ACSL (proofs/modules.conf, modules rt-*): no undefined behaviour for any argument; the
 * arithmetic libcalls assign nothing, the mem* functions only the n destination bytes. */
/*@ assigns \nothing; */
int RT(__mulsi3)(int a, int b);
/*@ assigns \nothing; */
int RT(__divsi3)(int a, int b);
/*@ assigns \nothing; */
int RT(__modsi3)(int a, int b);
/*@ assigns \nothing; */
unsigned RT(__udivsi3)(unsigned a, unsigned b);
/*@ assigns \nothing; */
unsigned RT(__umodsi3)(unsigned a, unsigned b);

/*@ assigns \nothing; */
long long RT(__muldi3)(long long a, long long b);
/*@ assigns \nothing; */
long long RT(__divdi3)(long long a, long long b);
/*@ assigns \nothing; */
long long RT(__moddi3)(long long a, long long b);
/*@ assigns \nothing; */
unsigned long long RT(__udivdi3)(unsigned long long a, unsigned long long b);
/*@ assigns \nothing; */
unsigned long long RT(__umoddi3)(unsigned long long a, unsigned long long b);

/* Shift amounts must be 0..63, as for the C operators (others are taken modulo 64). */
/*@ assigns \nothing;
    ensures b == 0 ==> \result == a; */
long long RT(__ashldi3)(long long a, int b);
/*@ assigns \nothing;
    ensures b == 0 ==> \result == a; */
long long RT(__lshrdi3)(long long a, int b);
/*@ assigns \nothing;
    ensures b == 0 ==> \result == a; */
long long RT(__ashrdi3)(long long a, int b);

/*@ requires \valid((unsigned char *)dst + (0 .. n - 1));
    requires \valid_read((const unsigned char *)src + (0 .. n - 1));
    requires \separated((unsigned char *)dst + (0 .. n - 1), (const unsigned char *)src + (0 .. n - 1));
    assigns ((unsigned char *)dst)[0 .. n - 1] \from ((const unsigned char *)src)[0 .. n - 1];
    ensures \forall integer i; 0 <= i < n ==>
              ((unsigned char *)dst)[i] == \old(((const unsigned char *)src)[i]);
    ensures \result == dst; */
void *RT(memcpy)(void *restrict dst, const void *restrict src, size_t n);
/*@ requires \valid((unsigned char *)dst + (0 .. n - 1));
    requires \valid_read((const unsigned char *)src + (0 .. n - 1));
    assigns ((unsigned char *)dst)[0 .. n - 1];
    ensures \result == dst; */
void *RT(memmove)(void *dst, const void *src, size_t n);
/*@ requires \valid((unsigned char *)dst + (0 .. n - 1));
    assigns ((unsigned char *)dst)[0 .. n - 1];
    ensures \forall integer i; 0 <= i < n ==> ((unsigned char *)dst)[i] == (unsigned char)c;
    ensures \result == dst; */
void *RT(memset)(void *dst, int c, size_t n);
/*@ requires \valid_read((const unsigned char *)a + (0 .. n - 1));
    requires \valid_read((const unsigned char *)b + (0 .. n - 1));
    assigns \nothing;
    ensures -1 <= \result <= 1;
    ensures \result == 0 <==> \forall integer i; 0 <= i < n ==>
              ((const unsigned char *)a)[i] == ((const unsigned char *)b)[i]; */
int RT(memcmp)(const void *a, const void *b, size_t n);

#endif
