/* cmocka tests of the VM's embedder interface: memory placement, state machine, budgets,
 * missing services, and that verification covers the loaded copy, not the source image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nic_host.h"
#include "pdlc.h"
#include "vm.h"

static struct buf compile(const char *src) {
  struct buf img = {NULL, 0, 0};
  assert_int_equal(pdlc_compile("t.pdl", src, strlen(src), stderr, &img), 0);
  return img;
}

static struct buf assemble(const char *src) {
  struct buf img = {NULL, 0, 0};
  assert_int_equal(pdlc_assemble("t.s", src, strlen(src), stderr, &img), 0);
  return img;
}

static const char counter_src[] =
    "PROGRAM c: VAR n; TRIGGERS 1; BEGIN n = 1; DISPLAY n END;\n"
    "MESSAGE 1: BEGIN n = n + 1; DISPLAY n END; END;\n";

static void test_memory_too_small(void **state) {
  (void)state;
  struct buf img = compile(counter_src);
  size_t need = vm_mem_needed(img.p, img.len);
  assert_true(need > 0);
  uint8_t *mem = malloc(need);
  struct vm_program p;
  struct vm_diag d;
  assert_false(vm_load(&p, img.p, img.len, mem, need / 2, &d));
  assert_int_equal(d.code, VM_ERR_NO_MEMORY);
  assert_int_equal(p.state, VM_PS_EMPTY);
  assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
  free(mem);
  buf_free(&img);
}

static void test_unaligned_region(void **state) {
  (void)state;
  struct buf img = compile(counter_src);
  size_t need = vm_mem_needed(img.p, img.len);
  uint8_t *mem = malloc(need + 1);
  struct vm_program p;
  struct vm_diag d;
  struct nic_host h;
  struct vm_services s;
  nic_host_init(&h, NULL);
  nic_host_services(&h, &s);
  assert_true(vm_load(&p, img.p, img.len, mem + 1, need, &d));
  assert_int_equal((uintptr_t)p.data % 4, 0);
  assert_int_equal(vm_start(&p, &s, 100), VM_R_AWAIT);
  assert_int_equal(p.data[0], 1);
  free(mem);
  buf_free(&img);
}

static void test_copy_is_verified(void **state) {
  (void)state;
  struct buf img = compile(counter_src);
  size_t need = vm_mem_needed(img.p, img.len);
  uint8_t *mem = malloc(need);
  struct vm_program p;
  struct vm_diag d;
  assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
  memset(img.p + VM_HDR_SIZE + 8, 0xff, img.len - VM_HDR_SIZE - 8); /* host scribbles later */
  assert_int_not_equal(p.code[0], 0xff);
  free(mem);
  buf_free(&img);
}

static void test_state_machine(void **state) {
  (void)state;
  struct buf img = compile(counter_src);
  size_t need = vm_mem_needed(img.p, img.len);
  uint8_t *mem = malloc(need);
  struct vm_program p;
  struct vm_diag d;
  struct nic_host h;
  struct vm_services s;
  nic_host_init(&h, NULL);
  nic_host_services(&h, &s);
  assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
  assert_int_equal(vm_dispatch(&p, 1, NULL, &s, 100), VM_R_NOT_READY);
  assert_int_equal(vm_start(&p, &s, 100), VM_R_AWAIT);
  assert_int_equal(vm_start(&p, &s, 100), VM_R_NOT_READY);
  assert_int_equal(vm_dispatch(&p, 1, NULL, &s, 100), VM_R_AWAIT);
  assert_int_equal(p.data[0], 2);
  assert_int_equal(vm_dispatch(&p, 2, NULL, &s, 100), VM_R_NO_TRIGGER);
  assert_string_equal(p.name, "c");
  free(mem);
  buf_free(&img);
}

static void test_budget_is_exact(void **state) {
  (void)state;
  struct buf img = assemble("push 1\npop\nnop\nawait\n");
  size_t need = vm_mem_needed(img.p, img.len);
  uint8_t *mem = malloc(need);
  struct vm_program p;
  struct vm_diag d;
  struct vm_services s = {0};
  assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
  assert_int_equal(vm_start(&p, &s, 3), VM_R_BUDGET);
  assert_int_equal(p.last_steps, 3);
  assert_int_equal(p.aborts, 1);
  assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
  assert_int_equal(vm_start(&p, &s, 4), VM_R_AWAIT); /* AWAIT without an await service */
  assert_int_equal(p.last_steps, 4);
  assert_int_equal(p.aborts, 0);
  free(mem);
  buf_free(&img);
}

static void test_missing_services(void **state) {
  (void)state;
  static const char *const progs[] = {
      "PROGRAM a: BEGIN DISPLAY 1 END; END;",
      "PROGRAM a: VAR t; BEGIN t = CLOCK END; END;",
      "PROGRAM a: VAR m; BEGIN SEND m LEN 4 AS 1 TO 1 AT 1 END; END;",
      "PROGRAM a: VAR m; BEGIN DELIVER m OFFSET 0 INTO 0 LEN 4 END; END;",
      "PROGRAM a: VAR m; BEGIN GET m OFFSET 0 FROM 0 LEN 4 END; END;",
  };
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    struct buf img = compile(progs[i]);
    size_t need = vm_mem_needed(img.p, img.len);
    uint8_t *mem = malloc(need);
    struct vm_program p;
    struct vm_diag d;
    struct vm_services s = {0};
    assert_true(vm_load(&p, img.p, img.len, mem, need, &d));
    assert_int_equal(vm_start(&p, &s, 100), VM_R_FAULT_SERVICE);
    free(mem);
    buf_free(&img);
  }
}

/* Every single-byte corruption of a valid module is rejected or runs safely under budget. */
static void test_single_byte_mutations(void **state) {
  (void)state;
  struct buf img = compile(
      "PROGRAM m: VAR a[4], i; TRIGGERS 1; BEGIN WHILE i < 4 DO BEGIN a[i] = i; i = i + 1 END END;"
      "MESSAGE 1: BEGIN DELIVER a[1] OFFSET 0 INTO 1 LEN 8; DISPLAY a[3] END; END;");
  struct nic_host *h = malloc(sizeof *h);
  struct vm_services s;
  nic_host_init(h, NULL);
  nic_host_services(h, &s);
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  int accepted = 0;
  for (size_t at = 0; at < img.len; at++) {
    for (size_t v = 0; v < sizeof values; v++) {
      uint8_t old = img.p[at];
      img.p[at] = values[v];
      size_t need = vm_mem_needed(img.p, img.len);
      uint8_t *mem = malloc(need ? need : 1);
      struct vm_program p;
      struct vm_diag d;
      if (need && vm_load(&p, img.p, img.len, mem, need, &d)) {
        accepted++;
        vm_start(&p, &s, 10000);
        vm_dispatch(&p, 1, NULL, &s, 10000);
      }
      free(mem);
      img.p[at] = old;
    }
  }
  assert_true(accepted > 0);
  free(h);
  buf_free(&img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_too_small),   cmocka_unit_test(test_unaligned_region),
      cmocka_unit_test(test_copy_is_verified),   cmocka_unit_test(test_state_machine),
      cmocka_unit_test(test_budget_is_exact),    cmocka_unit_test(test_missing_services),
      cmocka_unit_test(test_single_byte_mutations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
