/* panicctl: controls the PANIC VM of a NIC (libpanic): load a module, unload, run a program's
 * initial block, send a message to a trigger, list programs, read DISPLAY output, route a
 * PANIC address; on the local NIC or, with --node, a remote one. Errors are named and the
 * exit status is 1 (2 for a usage error).
 *   panicctl [-d nicN] [--node N] load FILE.pvm ID | unload ID | run ID |
 *            send ID TRIGGER [BYTE...] | list | display | route ADDR NODE [--remove] */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panic.h"

static void usage(void) {
  fprintf(stderr,
          "usage: panicctl [-d nicN] [--node N] COMMAND\n"
          "  load FILE.pvm ID        load a module as program ID\n"
          "  unload ID               unload program ID\n"
          "  run ID                  run its initial block\n"
          "  send ID TRIGGER [BYTE...]  send a message (bytes 0..255) to a trigger\n"
          "  list                    list the programs\n"
          "  display                 print and take the DISPLAY output (local NIC)\n"
          "  route ADDR NODE [--remove]  route PANIC address a:b:...:h (or a number) to NODE\n");
  exit(2);
}

static int num(const char *s, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || v > max || s[0] == '-') return -1;
  *out = v;
  return 0;
}

static uint64_t arg_num(const char *what, const char *s, uint64_t max) {
  uint64_t v;
  if (num(s, max, &v)) {
    fprintf(stderr, "panicctl: %s: not a number up to %" PRIu64 ": '%s'\n", what, max, s);
    exit(2);
  }
  return v;
}

/* a:b:c:... (bytes, most significant first) or one number. */
static uint64_t arg_addr(const char *s) {
  if (!strchr(s, ':')) return arg_num("address", s, UINT64_MAX);
  uint64_t a = 0;
  int n = 0;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save), n++)
    a = a << 8 | arg_num("address byte", t, 255);
  if (n < 1 || n > 8) {
    fprintf(stderr, "panicctl: address: 1 to 8 bytes: '%s'\n", s);
    exit(2);
  }
  return a;
}

static int report(const char *what, int rc, const struct panic_res *r) {
  if (rc == 0) return 0;
  if (r->status == HOSTIF_PANIC_EREJECT)
    fprintf(stderr, "panicctl: %s: %s: %s at byte %u\n", what, panic_status_name(r->status),
            panic_vm_err_name(r->result), r->detail);
  else if (r->status == HOSTIF_PANIC_EABORT)
    fprintf(stderr, "panicctl: %s: %s: %s\n", what, panic_status_name(r->status),
            panic_vm_result_name(r->result));
  else if (r->result == 7 /* VM_R_NO_TRIGGER */)
    fprintf(stderr, "panicctl: %s: the program has no block for this trigger\n", what);
  else if (r->status > HOSTIF_PANIC_OK)
    fprintf(stderr, "panicctl: %s: %s\n", what, panic_status_name(r->status));
  else
    fprintf(stderr, "panicctl: %s: %s\n", what, strerror(-rc));
  return 1;
}

int main(int argc, char **argv) {
  const char *dev = "nic0";
  long node = -1;
  bool remove = false;
  char *pos[64];
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if ((!strcmp(argv[i], "-d") || !strcmp(argv[i], "--dev")) && i + 1 < argc) dev = argv[++i];
    else if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "--node")) && i + 1 < argc)
      node = (long)arg_num("node", argv[++i], 65535);
    else if (!strcmp(argv[i], "--remove")) remove = true;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) usage();
    else if (argv[i][0] == '-' && argv[i][1] && !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
      fprintf(stderr, "panicctl: unknown option %s\n", argv[i]);
      usage();
    } else if (npos < 64) pos[npos++] = argv[i];
    else usage();
  }
  if (npos == 0) usage();
  const char *cmd = pos[0];
  static const struct { const char *name; int min, max; } cmds[] = {
      {"load", 3, 3}, {"unload", 2, 2}, {"run", 2, 2}, {"send", 3, 64},
      {"list", 1, 1}, {"display", 1, 1}, {"route", 3, 3}};
  int known = -1;
  for (unsigned i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (!strcmp(cmd, cmds[i].name)) known = (int)i;
  if (known < 0) {
    fprintf(stderr, "panicctl: unknown command '%s'\n", cmd);
    usage();
  }
  if (npos < cmds[known].min || npos > cmds[known].max) {
    fprintf(stderr, "panicctl: %s: wrong number of arguments\n", cmd);
    usage();
  }
  struct panic_dev *p;
  int rc = panic_open(dev, &p);
  if (rc) {
    fprintf(stderr, "panicctl: %s: %s\n", dev,
            rc == -ENOTSUP ? "the firmware has no PANIC VM"
            : rc == -ENOENT || rc == -ENODEV ? "no such NIC (is nicd running?)" : strerror(-rc));
    return 1;
  }
  uint16_t at = node < 0 ? panic_node(p) : (uint16_t)node;
  struct panic_res r = {0};
  int status = 0;
  char what[300];
  snprintf(what, sizeof what, "%s", cmd);
  if (!strcmp(cmd, "load")) {
    uint32_t id = (uint32_t)arg_num("program id", pos[2], UINT32_MAX);
    snprintf(what, sizeof what, "load %s", pos[1]);
    status = report(what, panic_load_file(p, at, id, pos[1], &r), &r);
    if (!status) printf("loaded %s as program %u on node %u\n", pos[1], id, at);
  } else if (!strcmp(cmd, "unload")) {
    uint32_t id = (uint32_t)arg_num("program id", pos[1], UINT32_MAX);
    status = report(what, panic_unload(p, at, id, &r), &r);
  } else if (!strcmp(cmd, "run")) {
    uint32_t id = (uint32_t)arg_num("program id", pos[1], UINT32_MAX);
    status = report(what, panic_run(p, at, id, &r), &r);
    if (!status) printf("program %u: initial block ended: %s\n", id, panic_vm_result_name(r.result));
  } else if (!strcmp(cmd, "send")) {
    uint32_t id = (uint32_t)arg_num("program id", pos[1], UINT32_MAX);
    uint32_t trig = (uint32_t)arg_num("trigger", pos[2], UINT32_MAX);
    uint8_t msg[64];
    int n = 0;
    for (int i = 3; i < npos; i++) msg[n++] = (uint8_t)arg_num("message byte", pos[i], 255);
    status = report(what, panic_send(p, at, id, trig, msg, (size_t)n, &r), &r);
    if (!status) printf("program %u: trigger %u ended: %s\n", id, trig, panic_vm_result_name(r.result));
  } else if (!strcmp(cmd, "list")) {
    struct hostif_panic_prog l[HOSTIF_PANIC_NPROG];
    unsigned n = 0;
    status = report(what, panic_list(p, at, l, HOSTIF_PANIC_NPROG, &n, &r), &r);
    static const char *const st[] = {"empty", "loaded", "waiting", "stopped"};
    if (!status) {
      printf("%-10s %-16s %-8s %8s %11s %7s\n", "id", "name", "state", "memory", "activations",
             "aborts");
      for (unsigned i = 0; i < n && i < HOSTIF_PANIC_NPROG; i++)
        printf("%-10u %-16.16s %-8s %8u %11u %7u\n", l[i].id, l[i].name,
               l[i].state < 4 ? st[l[i].state] : "?", l[i].mem, l[i].activations, l[i].aborts);
    }
  } else if (!strcmp(cmd, "display")) {
    if (node >= 0 && node != panic_node(p)) {
      fprintf(stderr, "panicctl: display: only the local NIC's output can be read\n");
      status = 1;
    } else {
      struct hostif_panic_display d[256];
      int n;
      while ((n = panic_display_read(p, d, 256)) > 0)
        for (int i = 0; i < n; i++) printf("%u %d\n", d[i].prog, d[i].value);
      uint32_t drops = panic_display_drops(p);
      if (drops) fprintf(stderr, "panicctl: display: %u values were dropped (ring full)\n", drops);
    }
  } else if (!strcmp(cmd, "route")) {
    uint64_t addr = arg_addr(pos[1]);
    uint16_t to = (uint16_t)arg_num("node", pos[2], 65535);
    status = report(what, panic_route(p, addr, to, remove, &r), &r);
  }
  panic_close(p);
  return status;
}
