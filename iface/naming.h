/* Naming: where a Verinic installation keeps its files (the run directory) and the hosts
 * file that maps names to NIC node ids, read by nicd, VIPL's name service and SOVIA (and its
 * LD_PRELOAD shim), and where each node's NIC is on the network (the UDP fabric's addresses).
 * One grammar, one set of limits, errors as file:line:col. The format is described in
 * iface/README.md ("The hosts file"). */
#ifndef IFACE_NAMING_H
#define IFACE_NAMING_H

#include <stddef.h>
#include <stdint.h>

#define NAMING_RUN_ENV    "VERINIC_RUN"    /* the run directory, default /tmp/verinic-<uid> */
#define NAMING_HOSTS_ENV  "VERINIC_HOSTS"  /* the hosts file, default <run directory>/hosts */
#define NAMING_SOCKET_ENV "VERINIC_SOCKET" /* nicd's socket, default <run directory>/nicd.sock */
#define NAMING_NAME_MAX   255u             /* bytes of a name */
#define NAMING_NODE_MAX   65535u           /* node ids are 0..NAMING_NODE_MAX (16 bits on the wire) */
#define NAMING_LINE_MAX   1024u            /* bytes of a line, comment included */
#define NAMING_ENTRIES_MAX 4096u           /* entries in one file */
#define NAMING_FILE_MAX   (1u << 20)       /* bytes of one file */
#define NAMING_ERR_LEN    320u             /* room for an error message */

/* Writes "<run directory>/<file>" (file "" or NULL: the directory itself) into out.
 * 0, or -ENAMETOOLONG when it does not fit. */
int naming_run_path(const char *file, char *out, size_t cap);
/* The hosts file's path: $VERINIC_HOSTS, else <run directory>/hosts. 0 or -ENAMETOOLONG. */
int naming_hosts_path(char *out, size_t cap);
/* nicd's connection manager socket: $VERINIC_SOCKET, else <run directory>/nicd.sock. */
int naming_socket_path(char *out, size_t cap);

struct naming_entry {
  const char *name;
  uint16_t node;
  unsigned line;
  const char *host; /* the node's address (the UDP fabric's), or NULL: an IPv4 or IPv6 */
  uint16_t port;    /* address, without brackets, or a host name; port 1..65535 */
};

/* A parsed hosts file: its entries in file order. */
struct naming_hosts {
  struct naming_entry *e;
  unsigned n;
  char *names;   /* the names' storage */
};

/* Parses hosts-file text (len bytes, need not be NUL-terminated; `file` names it in errors).
 * 0, or -EINVAL with err = "file:line:col: error: what" for the first error (nothing kept),
 * or -ENOMEM. Free with naming_hosts_free. */
int naming_hosts_parse(const char *text, size_t len, const char *file, struct naming_hosts *h,
                       char *err, size_t errcap);
/* Reads and parses a hosts file. As naming_hosts_parse; a missing or unreadable file is
 * -errno with err = "file: reason". */
int naming_hosts_load(const char *path, struct naming_hosts *h, char *err, size_t errcap);
void naming_hosts_free(struct naming_hosts *h);

/* The node of the index-th entry (0: the first) named `name`, or -1. */
int naming_by_name(const struct naming_hosts *h, const char *name, unsigned index);
/* The first entry for node, or NULL. */
const struct naming_entry *naming_by_node(const struct naming_hosts *h, unsigned node);
/* The first entry for node that gives its address, or NULL. */
const struct naming_entry *naming_addr(const struct naming_hosts *h, unsigned node);

#endif
