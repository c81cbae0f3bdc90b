/* bench-vm's six kernels (tests/pdl/bench_vm.c) as C for clang -target bpf, one function per
 * ELF section, for the one-off uBPF baseline (tests/pdl/UBPF.md; not built by make). The
 * program's memory argument holds the arrays: a[1000] at word 0, b[1000] at 1000, t[256] at
 * 2000. KEEP stops clang from computing the counting loop's result without looping. */
typedef unsigned int u32;
typedef int i32;
#define K(name) __attribute__((section("s_" #name), used)) long name(u32 *m)
#define KEEP(x) asm volatile("" : "+r"(x))

K(k_loop) { u32 i = 0; while (i < 200000) { i = i + 1; KEEP(i); } return i; }

K(k_sum) {
  u32 *a = m; i32 i = 0, s = 0;
  while (i < 1000) { a[i] = i; i = i + 1; }
  i = 0;
  while (i < 200000) { s = s + a[(u32)i % 1000]; i = i + 1; }
  return s;
}

K(k_lookup) {
  u32 *t = m + 2000; i32 i = 0, x = 1;
  while (i < 256) { t[i] = (u32)(i * 7 + 3) % 256; i = i + 1; }
  i = 0;
  while (i < 200000) { x = t[(u32)(x * 5 + 1) % 256]; i = i + 1; }
  return x;
}

K(k_copy) {
  u32 *a = m, *b = m + 1000; i32 i = 0, r = 0, j;
  while (i < 1000) { a[i] = i * 3; i = i + 1; }
  while (r < 200) { j = 0; while (j < 1000) { b[j] = a[j]; j = j + 1; } r = r + 1; }
  return b[999];
}

K(k_checksum) {
  u32 *a = m; i32 i = 0, r = 0, j, s = 0;
  while (i < 1000) { a[i] = (u32)(i * 257) % 65536; i = i + 1; }
  while (r < 200) {
    j = 0;
    while (j < 1000) { s = s + a[j]; if (s > 65535) s = s - 65535; j = j + 1; }
    r = r + 1;
  }
  return s;
}

K(k_branchy) {
  i32 i = 0, x = 0, y = 0, z = 0, k;
  while (i < 200000) {
    k = (u32)i % 3;
    if (k == 0) x = x + 1; else if (k == 1) y = y + 2; else z = z + 3;
    i = i + 1;
  }
  return x + y * 3 + z * 7;
}
