/* test_profile.c: the hardware profile reader (hw/profile.c): units, the optional processor
 * count, every shipped profile in hw/profiles/, and the file:line:col of each kind of error. */
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "../../hw/profile.h"

#define GOOD                                                                               \
  "name = test bed\n"                                                                      \
  "nic.clock = 133 MHz   # a comment\n"                                                    \
  "hdma.bandwidth = 1007 Mb/s\n"                                                           \
  "hdma.setup = 1.5 us\n"                                                                  \
  "link.bandwidth = 1.28 Gb/s\n"                                                           \
  "link.latency = 300 ns\n"                                                                \
  "send.setup = 0.2 us\n"                                                                  \
  "host.call = 250 ns\n"                                                                   \
  "host.wake = 1 us\n"                                                                     \
  "host.memcpy = 300 MB/s\n"

static void expect_error(const char *text, const char *want) {
  struct profile p;
  char err[PROFILE_ERR_LEN] = "";
  int rc = profile_parse("t.prof", text, strlen(text), &p, err, sizeof err);
  CHECK(rc == -1 && strcmp(err, want) == 0, "want '%s', got %d '%s'", want, rc, err);
}

int main(int argc, char **argv) {
  struct profile p;
  char err[PROFILE_ERR_LEN] = "";
  CHECK(profile_parse("t.prof", GOOD, strlen(GOOD), &p, err, sizeof err) == 0, "%s", err);
  CHECK(strcmp(p.name, "test bed") == 0, "name '%s'", p.name);
  CHECK(p.nic_hz == 133000000, "clock %llu", (unsigned long long)p.nic_hz);
  CHECK(p.hdma_bps == 125875000, "hdma %llu", (unsigned long long)p.hdma_bps);
  CHECK(p.hdma_setup_ns == 1500 && p.link_latency_ns == 300 && p.send_setup_ns == 200, "times");
  CHECK(p.link_bps == 160000000, "link %llu", (unsigned long long)p.link_bps);
  CHECK(p.host_copy_bps == 300000000 && p.host_wake_ns == 1000 && p.host_call_ns == 250, "host");
  CHECK(profile_cycles_ns(&p, 133) == 1000 && profile_cycles_ns(&p, 1) == 8, "cycles to ns");
  CHECK(p.processors == 1, "processors default %llu", (unsigned long long)p.processors);
  const char *two = GOOD "processors = 2\n";
  CHECK(profile_parse("t.prof", two, strlen(two), &p, err, sizeof err) == 0 && p.processors == 2,
        "processors = 2: %s", err);

  expect_error("name = x\nnic.clock = 133 MHz\nnic.clock = 1 GHz\n",
               "t.prof:3:1: error: 'nic.clock' given twice");
  expect_error("  hdma.setup = 2 parsecs\n",
               "t.prof:1:18: error: unknown unit 'parsecs': expected a time (ns, us, ms, s)");
  expect_error("link.bandwidth = fast\n",
               "t.prof:1:18: error: expected a number, a bandwidth (B/s, kB/s, MB/s, GB/s, b/s, "
               "Kb/s, Mb/s, Gb/s)");
  expect_error("\n\nlink.speed = 1 Gb/s\n", "t.prof:3:1: error: unknown key 'link.speed'");
  expect_error("host.call 5 ns\n", "t.prof:1:11: error: expected '=' after 'host.call'");
  expect_error("host.call = 5\n", "t.prof:1:14: error: missing unit: expected a time (ns, us, ms, s)");
  expect_error("name = only\n", "t.prof:2:1: error: missing key 'nic.clock'");
  expect_error("processors = 3\n", "t.prof:1:14: error: expected 1 or 2, without a unit");
  expect_error("processors = 2 cpus\n", "t.prof:1:14: error: expected 1 or 2, without a unit");

  /* Every shipped profile loads (run from the top of the tree; or the files given). */
  glob_t g = {0};
  if (argc == 1) glob("hw/profiles/*.prof", 0, NULL, &g);
  size_t n = argc > 1 ? (size_t)argc - 1 : g.gl_pathc;
  CHECK(n >= 4, "%zu profiles in hw/profiles", n);
  for (size_t i = 0; i < n; i++) {
    const char *f = argc > 1 ? argv[i + 1] : g.gl_pathv[i];
    int rc = profile_load(f, &p, err, sizeof err);
    CHECK(rc == 0 && p.name[0] && p.nic_hz && p.hdma_bps && p.link_bps, "%s: %s", f, err);
  }
  globfree(&g);
  CHECK(profile_load("/nonexistent.prof", &p, err, sizeof err) == -1 &&
            strstr(err, "/nonexistent.prof: No such file") == err, "%s", err);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
