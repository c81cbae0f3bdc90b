/* libFuzzer target: arbitrary bytes through the hosts file parser (iface/naming.c), addresses
 * included. What parses keeps the limits, every entry can be found again by its name and its
 * node, and a node's address is the same on each of its lines; what does not parse says where
 * (file:line:col). */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "naming.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  int rc = naming_hosts_parse((const char *)data, size, "fuzz", &h, err, sizeof err);
  if (rc != 0) {
    assert(rc == -EINVAL && strncmp(err, "fuzz:", 5) == 0 && strstr(err, ": error: "));
    return 0;
  }
  assert(h.n <= NAMING_ENTRIES_MAX);
  for (unsigned i = 0; i < h.n; i++) {
    size_t len = strlen(h.e[i].name);
    assert(len >= 1 && len <= NAMING_NAME_MAX && !strpbrk(h.e[i].name, " \t\r\n#"));
    assert(h.e[i].node <= NAMING_NODE_MAX && h.e[i].line >= 1);
    int first = naming_by_name(&h, h.e[i].name, 0);
    assert(first >= 0);
    assert(naming_by_node(&h, h.e[i].node) != NULL);
    if (h.e[i].host) { /* an address: the same on every line of its node */
      const struct naming_entry *a = naming_addr(&h, h.e[i].node);
      assert(a && h.e[i].port >= 1 && strlen(h.e[i].host) >= 1);
      assert(a->port == h.e[i].port && strcmp(a->host, h.e[i].host) == 0);
      assert(!strpbrk(h.e[i].host, " \t\r\n#[]"));
    }
  }
  naming_hosts_free(&h);
  return 0;
}
