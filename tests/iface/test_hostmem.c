/* DMA-able host memory (iface/hostmem.c): a segment is created zeroed, page-rounded and
 * mapped under a name that says whose it is (hostmem_owner, which nicd's segment reaper
 * reads from /dev/shm), and destroying it removes the name. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostmem.h"

static void create_and_destroy(void **state) {
  (void)state;
  struct hostmem m;
  assert_int_equal(hostmem_create(&m, 100), 0);
  assert_true(m.len >= 100 && m.len % (size_t)sysconf(_SC_PAGESIZE) == 0);
  for (size_t i = 0; i < m.len; i++) assert_int_equal(m.base[i], 0);
  m.base[m.len - 1] = 7;
  int fd = shm_open(m.name, O_RDONLY, 0);
  assert_true(fd >= 0);
  close(fd);
  char name[HOSTMEM_NAME_LEN];
  memcpy(name, m.name, sizeof name);
  hostmem_destroy(&m);
  assert_null(m.base);
  assert_int_equal(shm_open(name, O_RDONLY, 0), -1);
  assert_int_equal(errno, ENOENT);
  assert_int_equal(hostmem_create(&m, 0), -EINVAL);
}

static void names_say_whose(void **state) {
  (void)state;
  struct hostmem a, b;
  assert_int_equal(hostmem_create(&a, 1), 0);
  assert_int_equal(hostmem_create(&b, 1), 0);
  assert_string_not_equal(a.name, b.name);
  assert_int_equal(strncmp(a.name, HOSTMEM_PREFIX, strlen(HOSTMEM_PREFIX)), 0);
  assert_int_equal(hostmem_owner(a.name), getpid());      /* as shm_open names it */
  assert_int_equal(hostmem_owner(a.name + 1), getpid());  /* as /dev/shm lists it */
  hostmem_destroy(&a);
  hostmem_destroy(&b);
  assert_int_equal(hostmem_owner("/vh1f.2"), 0x1f);
  const char *not_segments[] = {"", "/", "vh", "/vh.1", "/vhzz.1", "/vh12", "/vh12x1", "/vh0.1",
                                "/vh-5.1", "/verinic-nic0", "vx12.1"};
  for (size_t i = 0; i < sizeof not_segments / sizeof *not_segments; i++)
    assert_int_equal(hostmem_owner(not_segments[i]), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_and_destroy),
      cmocka_unit_test(names_say_whose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
