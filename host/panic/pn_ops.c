/* pn_ops.c: libpanic's commands (load, unload, run, send, list, route) and the VM's names for
 * results and verifier reasons (vm.h, vm_format.h), so that hosts need not link the VM. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pn_int.h"
#include "vm.h"

static struct hostif_panic_cmd cmd_for(uint32_t op, uint16_t node, uint32_t id) {
  struct hostif_panic_cmd c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.node = node;
  c.prog = id;
  return c;
}

int panic_load(struct panic_dev *p, uint16_t node, uint32_t id, const void *img, size_t len,
               struct panic_res *res) {
  if (!img || len == 0) return -EINVAL;
  if (len > HOSTIF_PANIC_DATA_MAX) return -EFBIG;
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_LOAD, node, id);
  return pn_command(p, &c, img, len, res, NULL, 0);
}

int panic_load_file(struct panic_dev *p, uint16_t node, uint32_t id, const char *path,
                    struct panic_res *res) {
  FILE *f = fopen(path, "rb");
  if (!f) return -errno;
  unsigned char *buf = malloc(HOSTIF_PANIC_DATA_MAX + 1);
  if (!buf) {
    fclose(f);
    return -ENOMEM;
  }
  size_t n = fread(buf, 1, HOSTIF_PANIC_DATA_MAX + 1, f);
  int err = ferror(f);
  fclose(f);
  int rc = err ? -EIO : n > HOSTIF_PANIC_DATA_MAX ? -EFBIG : n == 0 ? -EINVAL
                                                             : panic_load(p, node, id, buf, n, res);
  free(buf);
  return rc;
}

int panic_unload(struct panic_dev *p, uint16_t node, uint32_t id, struct panic_res *res) {
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_UNLOAD, node, id);
  return pn_command(p, &c, NULL, 0, res, NULL, 0);
}

int panic_run(struct panic_dev *p, uint16_t node, uint32_t id, struct panic_res *res) {
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_RUN, node, id);
  return pn_command(p, &c, NULL, 0, res, NULL, 0);
}

int panic_send(struct panic_dev *p, uint16_t node, uint32_t id, uint32_t trigger,
               const void *msg, size_t len, struct panic_res *res) {
  if (len > HOSTIF_PANIC_MSG_MAX || (len && !msg)) return -EMSGSIZE;
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_SEND, node, id);
  c.trigger = trigger;
  return pn_command(p, &c, msg, len, res, NULL, 0);
}

int panic_list(struct panic_dev *p, uint16_t node, struct hostif_panic_prog *out, unsigned max,
               unsigned *n, struct panic_res *res) {
  struct panic_res r;
  if (!res) res = &r;
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_LIST, node, 0);
  int rc = pn_command(p, &c, NULL, 0, res, out, max);
  if (n) *n = rc == 0 ? res->detail : 0;
  return rc;
}

int panic_route(struct panic_dev *p, uint64_t addr, uint16_t node, bool remove,
                struct panic_res *res) {
  struct hostif_panic_cmd c = cmd_for(HOSTIF_PANIC_ROUTE, panic_node(p), 0);
  c.arg[0] = (uint32_t)addr;
  c.arg[1] = (uint32_t)(addr >> 32);
  c.arg[2] = node;
  c.arg[3] = remove;
  return pn_command(p, &c, NULL, 0, res, NULL, 0);
}

const char *panic_vm_result_name(uint32_t r) {
  static const char *const n[] = {"await", "stop", "budget", "fault-bounds", "fault-div",
                                  "fault-service", "fault-internal", "no-trigger", "not-ready"};
  _Static_assert(VM_R_NOT_READY == 8, "vm_result names");
  return r < sizeof n / sizeof n[0] ? n[r] : "unknown";
}

const char *panic_vm_err_name(uint32_t e) {
  static const char *const n[] = {
#define PN_ERR_NAME(c, s) s,
      VM_ERR_TABLE(PN_ERR_NAME)
#undef PN_ERR_NAME
  };
  return e < sizeof n / sizeof n[0] ? n[e] : "unknown";
}
