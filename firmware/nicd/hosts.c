/* hosts.c: the name service file behind VipNSGetHostByName (CONNECT.md): lines
 * "<name> <node>", '#' comments; nicd writes a default one if there is none. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nicd.h"

int hosts_write_default(const char *path, unsigned nnics) {
  if (access(path, F_OK) == 0) return 0;
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "# VIA name service: <name> <node>. Written by nicd; edit freely.\nlocalhost 0\n");
  for (unsigned i = 0; i < nnics; i++) fprintf(f, "nic%u %u\n", i, i);
  return fclose(f) == 0 ? 0 : -1;
}

int hosts_resolve(const char *path, const char *name) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  int node = -1;
  while (node < 0 && fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char n[128];
    int v;
    if (sscanf(line, "%127s %d", n, &v) == 2 && strcmp(n, name) == 0 && v >= 0) node = v;
  }
  fclose(f);
  return node;
}
