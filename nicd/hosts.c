/* hosts.c: the name service file behind VipNSGetHostByName (format and parser: iface/naming.h,
 * iface/README.md); nicd writes a default one if there is none, and reports a malformed one. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "naming.h"
#include "nicd.h"

/* Prints the first error of the hosts file (file:line:col), if any. */
static void hosts_check(const char *path) {
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  if (naming_hosts_load(path, &h, err, sizeof err) != 0) fprintf(stderr, "nicd: %s\n", err);
  naming_hosts_free(&h);
}

int hosts_write_default(const char *path, unsigned nnics) {
  if (access(path, F_OK) == 0) {
    hosts_check(path);
    return 0;
  }
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "# VIA name service: <name> <node>. Written by nicd; edit freely.\nlocalhost 0\n");
  for (unsigned i = 0; i < nnics; i++) fprintf(f, "nic%u %u\n", i, i);
  return fclose(f) == 0 ? 0 : -1;
}

int hosts_resolve(const char *path, const char *name) {
  struct naming_hosts h;
  char err[NAMING_ERR_LEN];
  if (naming_hosts_load(path, &h, err, sizeof err) != 0) {
    fprintf(stderr, "nicd: %s\n", err);
    return -1;
  }
  int node = naming_by_name(&h, name, 0);
  naming_hosts_free(&h);
  return node;
}
