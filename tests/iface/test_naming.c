/* The hosts file and the run directory (iface/naming.c): the grammar (comments anywhere,
 * blank lines, tabs and CRLF, several lines per name), every error with its file:line:col,
 * the limits, the paths from the environment, and a file on disk. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "naming.h"

static int parse(const char *text, struct naming_hosts *h, char *err) {
  return naming_hosts_parse(text, strlen(text), "h", h, err, NAMING_ERR_LEN);
}

static void grammar(void **state) {
  (void)state;
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  const char *text = "# nodes\n\nalpha 3\n\tbeta\t7   # a comment\r\nalpha 9\n10.0.0.2 1#x\n"
                     "nic65535 65535\n   \n#only a comment";
  assert_int_equal(parse(text, &h, err), 0);
  assert_string_equal(err, "");
  assert_int_equal(h.n, 5);
  assert_int_equal(naming_by_name(&h, "alpha", 0), 3);
  assert_int_equal(naming_by_name(&h, "alpha", 1), 9);   /* the second line for the name */
  assert_int_equal(naming_by_name(&h, "alpha", 2), -1);
  assert_int_equal(naming_by_name(&h, "beta", 0), 7);
  assert_int_equal(naming_by_name(&h, "10.0.0.2", 0), 1);
  assert_int_equal(naming_by_name(&h, "nic65535", 0), 65535);
  assert_int_equal(naming_by_name(&h, "gamma", 0), -1);
  assert_string_equal(naming_by_node(&h, 9)->name, "alpha");
  assert_int_equal(naming_by_node(&h, 9)->line, 5);
  assert_null(naming_by_node(&h, 4));
  naming_hosts_free(&h);
  assert_int_equal(parse("", &h, err), 0);
  assert_int_equal(h.n, 0);
  naming_hosts_free(&h);
}

static void errors_say_where(void **state) {
  (void)state;
  const struct { const char *text, *err; } cases[] = {
      {"a 1\nb\n", "h:2:2: error: expected a node number (0..65535) after the name"},
      {"a 65536\n", "h:1:3: error: node number out of range 0..65535"},
      {"a 99999999999999999999\n", "h:1:3: error: node number out of range 0..65535"},
      {"a -1\n", "h:1:3: error: expected a node number (0..65535) after the name"},
      {"a 1x\n", "h:1:4: error: unexpected character 'x' in the node number"},
      {"a 1 2\n", "h:1:6: error: expected ':' and a port after the host"},
      {"\n\n  a 1 b # c\n", "h:3:8: error: expected ':' and a port after the host"},
      {"a 1 *:7\n", "h:1:5: error: expected an address HOST:PORT after the node number"},
      {"a 1 h:7 x\n", "h:1:9: error: unexpected text after the address"},
      {"a 1 h:0\n", "h:1:7: error: port out of range 1..65535"},
      {"a 1 h:65536\n", "h:1:7: error: port out of range 1..65535"},
      {"a 1 h:\n", "h:1:7: error: expected a port number (1..65535)"},
      {"a 1 h:7x\n", "h:1:8: error: unexpected character 'x' in the port"},
      {"a 1 10.0.0.300:7\n", "h:1:5: error: not an IPv4 address"},
      {"a 1 fe80::1:7\n", "h:1:5: error: an IPv6 address goes in brackets: [ADDRESS]:PORT"},
      {"a 1 [fe80::1:7\n", "h:1:5: error: '[' without ']' around an IPv6 address"},
      {"a 1 [1.2.3.4]:7\n", "h:1:6: error: not an IPv6 address"},
      {"a 1 x..y:7\n", "h:1:7: error: a label of the host name is empty or longer than 63 bytes"},
      {"a 1 h:7\nb 1 h:8\n", "h:2:5: error: node 1 is at h:7 (line 1)"},
      {"a\x01 1\n", "h:1:2: error: unexpected byte 0x01 in the name"},
      {"\xff 1\n", "h:1:1: error: unexpected byte 0xff"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct naming_hosts h;
    char err[NAMING_ERR_LEN];
    assert_int_equal(parse(cases[i].text, &h, err), -EINVAL);
    assert_string_equal(err, cases[i].err);
    assert_null(h.e);   /* nothing kept */
  }
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  assert_int_equal(naming_hosts_parse("a 1\nb\0 2\n", 10, "h", &h, err, sizeof err), -EINVAL);
  assert_string_equal(err, "h:2:2: error: NUL byte");
}

/* The address column: IPv4, IPv6 in brackets, host names; a node's address once or the same
 * on every line; lines without one. */
static void addresses(void **state) {
  (void)state;
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  const char *text = "nic0 0 10.0.0.1:7400\nnic1 1 [fd00::2]:7400 # v6\n"
                     "alias1 1 [fd00::2]:7400\nnic2 2 host-b.example:9\nlocal 3\nnic3 3 h:1\n";
  assert_int_equal(parse(text, &h, err), 0);
  assert_string_equal(err, "");
  assert_int_equal(h.n, 6);
  assert_string_equal(naming_addr(&h, 0)->host, "10.0.0.1");
  assert_int_equal(naming_addr(&h, 0)->port, 7400);
  assert_string_equal(naming_addr(&h, 1)->host, "fd00::2");
  assert_string_equal(naming_addr(&h, 2)->host, "host-b.example");
  assert_int_equal(naming_addr(&h, 2)->port, 9);
  assert_null(naming_by_node(&h, 3)->host);              /* the first line has none */
  assert_string_equal(naming_addr(&h, 3)->host, "h");    /* the second has */
  assert_null(naming_addr(&h, 4));
  assert_int_equal(naming_by_name(&h, "alias1", 0), 1);
  naming_hosts_free(&h);
}

static void limits(void **state) {
  (void)state;
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  static char text[NAMING_ENTRIES_MAX * 12 + 64];
  char name[NAMING_NAME_MAX + 2];
  memset(name, 'n', sizeof name);
  name[NAMING_NAME_MAX] = 0;   /* the longest name */
  snprintf(text, sizeof text, "%s 1\n", name);
  assert_int_equal(parse(text, &h, err), 0);
  assert_int_equal(naming_by_name(&h, name, 0), 1);
  naming_hosts_free(&h);
  name[NAMING_NAME_MAX] = 'n';
  name[NAMING_NAME_MAX + 1] = 0;
  snprintf(text, sizeof text, "%s 1\n", name);
  assert_int_equal(parse(text, &h, err), -EINVAL);
  assert_string_equal(err, "h:1:1: error: name longer than 255 bytes");
  memset(text, ' ', NAMING_LINE_MAX + 1);   /* a blank line, but too long */
  strcpy(text + NAMING_LINE_MAX + 1, "\n");
  assert_int_equal(parse(text, &h, err), -EINVAL);
  assert_string_equal(err, "h:1:1025: error: line longer than 1024 bytes");
  size_t n = 0;
  for (unsigned i = 0; i < NAMING_ENTRIES_MAX; i++) n += (size_t)sprintf(text + n, "n%u %u\n", i, i % 7);
  assert_int_equal(parse(text, &h, err), 0);
  assert_int_equal(h.n, NAMING_ENTRIES_MAX);
  assert_int_equal(naming_by_name(&h, "n4095", 0), 4095 % 7);
  naming_hosts_free(&h);
  strcpy(text + n, "one-more 1\n");
  assert_int_equal(parse(text, &h, err), -EINVAL);
  assert_string_equal(err, "h:4097:1: error: more than 4096 entries");
}

static void paths_and_files(void **state) {
  (void)state;
  char p[64], err[NAMING_ERR_LEN];
  unsetenv(NAMING_RUN_ENV);
  unsetenv(NAMING_HOSTS_ENV);
  unsetenv(NAMING_SOCKET_ENV);
  char want[64];
  snprintf(want, sizeof want, "/tmp/verinic-%u/hosts", (unsigned)getuid());
  assert_int_equal(naming_hosts_path(p, sizeof p), 0);
  assert_string_equal(p, want);
  setenv(NAMING_RUN_ENV, "/r", 1);
  assert_int_equal(naming_run_path(NULL, p, sizeof p), 0);
  assert_string_equal(p, "/r");
  assert_int_equal(naming_socket_path(p, sizeof p), 0);
  assert_string_equal(p, "/r/nicd.sock");
  assert_int_equal(naming_run_path("x", p, 4), -ENAMETOOLONG);
  char dir[] = "/tmp/naming-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char file[96];
  snprintf(file, sizeof file, "%s/hosts", dir);
  setenv(NAMING_HOSTS_ENV, file, 1);
  assert_int_equal(naming_hosts_path(p, sizeof p), 0);
  assert_string_equal(p, file);
  struct naming_hosts h;
  assert_int_equal(naming_hosts_load(file, &h, err, sizeof err), -ENOENT);
  char want_err[160];
  snprintf(want_err, sizeof want_err, "%s: %s", file, strerror(ENOENT));
  assert_string_equal(err, want_err);
  FILE *f = fopen(file, "w");
  fputs("x 1\nbad\n", f);
  fclose(f);
  assert_int_equal(naming_hosts_load(file, &h, err, sizeof err), -EINVAL);
  snprintf(want_err, sizeof want_err, "%s:2:4: error: expected a node number (0..65535) after the name", file);
  assert_string_equal(err, want_err);
  f = fopen(file, "w");
  fputs("x 1\ny 2", f);   /* no newline at the end */
  fclose(f);
  assert_int_equal(naming_hosts_load(file, &h, err, sizeof err), 0);
  assert_int_equal(naming_by_name(&h, "y", 0), 2);
  naming_hosts_free(&h);
  unlink(file);
  rmdir(dir);
  unsetenv(NAMING_RUN_ENV);
  unsetenv(NAMING_HOSTS_ENV);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(grammar),
      cmocka_unit_test(errors_say_where),
      cmocka_unit_test(addresses),
      cmocka_unit_test(limits),
      cmocka_unit_test(paths_and_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
