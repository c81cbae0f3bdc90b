/* The run directory and the hosts file: paths from the environment, the hosts file's parser
 * (grammar in iface/README.md) and lookups. */
#define _GNU_SOURCE
#include "naming.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int naming_run_path(const char *file, char *out, size_t cap) {
  const char *run = getenv(NAMING_RUN_ENV);
  const char *sep = file && *file ? "/" : "";
  if (!file) file = "";
  int n = run && *run ? snprintf(out, cap, "%s%s%s", run, sep, file)
                      : snprintf(out, cap, "/tmp/verinic-%u%s%s", (unsigned)getuid(), sep, file);
  return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* $var if set and not empty, else <run directory>/file. */
static int env_or_run(const char *var, const char *file, char *out, size_t cap) {
  const char *v = getenv(var);
  if (!v || !*v) return naming_run_path(file, out, cap);
  int n = snprintf(out, cap, "%s", v);
  return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int naming_hosts_path(char *out, size_t cap) { return env_or_run(NAMING_HOSTS_ENV, "hosts", out, cap); }

int naming_socket_path(char *out, size_t cap) {
  return env_or_run(NAMING_SOCKET_ENV, "nicd.sock", out, cap);
}

/* --- the parser: one line at a time ------------------------------------------------------ */

struct cursor {
  const char *p, *end;   /* the line, without its newline */
  const char *file;
  unsigned line;
  const char *start;     /* of the line, for columns */
  char *err;
  size_t errcap;
};

static int fail(struct cursor *c, const char *at, const char *fmt, ...) {
  if (c->err && c->errcap) {
    int n = snprintf(c->err, c->errcap, "%s:%u:%u: error: ", c->file, c->line,
                     (unsigned)(at - c->start) + 1);
    if (n >= 0 && (size_t)n < c->errcap) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(c->err + n, c->errcap - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -EINVAL;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }
static bool is_name(char ch) { return ch > ' ' && ch < 0x7f && ch != '#'; }

static void skip_space(struct cursor *c) {
  while (c->p < c->end && is_space(*c->p)) c->p++;
}

/* At the end of the line or at a comment. */
static bool at_end(const struct cursor *c) { return c->p == c->end || *c->p == '#'; }

static int parse_node(struct cursor *c, uint16_t *node) {
  const char *at = c->p;
  if (c->p == c->end || *c->p < '0' || *c->p > '9')
    return fail(c, at, "expected a node number (0..%u) after the name", NAMING_NODE_MAX);
  unsigned long v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    v = v * 10 + (unsigned long)(*c->p++ - '0');
    if (v > NAMING_NODE_MAX) return fail(c, at, "node number out of range 0..%u", NAMING_NODE_MAX);
  }
  if (c->p < c->end && !is_space(*c->p) && *c->p != '#')
    return fail(c, c->p, "unexpected character '%c' in the node number", *c->p);
  *node = (uint16_t)v;
  return 0;
}

static bool is_host(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '-' || ch == '.';
}

/* address := '[' ipv6 ']' ':' port | host ':' port ; host := an IPv4 address or a DNS name
 * (letters, digits, '-' and '.', labels of 1..63 bytes); port := 1..65535. The host is copied
 * into *names (its NUL takes the place of the ':'). */
static int parse_addr(struct cursor *c, char **names, const char **host, uint16_t *port) {
  const char *at = c->p, *h = c->p, *he;
  if (*c->p == '[') {
    h = ++c->p;
    while (c->p < c->end && *c->p != ']' && !is_space(*c->p) && *c->p != '#') c->p++;
    if (c->p == c->end || *c->p != ']') return fail(c, at, "'[' without ']' around an IPv6 address");
    he = c->p++;
    char v6[INET6_ADDRSTRLEN + 1];
    struct in6_addr a6;
    if ((size_t)(he - h) >= sizeof v6 || (memcpy(v6, h, (size_t)(he - h)), v6[he - h] = 0,
                                          inet_pton(AF_INET6, v6, &a6) != 1))
      return fail(c, h, "not an IPv6 address");
  } else {
    while (c->p < c->end && is_host(*c->p)) c->p++;
    he = c->p;
    if (he == h) return fail(c, at, "expected an address HOST:PORT after the node number");
    if (he == c->end || *he != ':') return fail(c, he, "expected ':' and a port after the host");
    for (const char *q = he + 1; q < c->end && !is_space(*q) && *q != '#'; q++)
      if (*q == ':') return fail(c, h, "an IPv6 address goes in brackets: [ADDRESS]:PORT");
    size_t label = 0, n = (size_t)(he - h);
    for (const char *q = h; q <= he; q++) {
      if (q < he && *q != '.') {
        label++;
        continue;
      }
      if (label == 0 || label > 63)
        return fail(c, q - label, "a label of the host name is empty or longer than 63 bytes");
      label = 0;
    }
    if (n > 253) return fail(c, h, "host name longer than 253 bytes");
    const char *q = h;
    while (q < he && ((*q >= '0' && *q <= '9') || *q == '.')) q++;
    if (q == he) { /* all digits and dots: it must be an IPv4 address */
      char v4[INET_ADDRSTRLEN + 1];
      struct in_addr a4;
      if (n >= sizeof v4 || (memcpy(v4, h, n), v4[n] = 0, inet_pton(AF_INET, v4, &a4) != 1))
        return fail(c, h, "not an IPv4 address");
    }
  }
  if (c->p == c->end || *c->p != ':') return fail(c, c->p, "expected ':' and a port after the host");
  const char *ps = ++c->p;
  unsigned long v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    v = v * 10 + (unsigned long)(*c->p++ - '0');
    if (v > 65535) return fail(c, ps, "port out of range 1..65535");
  }
  if (c->p == ps) return fail(c, ps, "expected a port number (1..65535)");
  if (v == 0) return fail(c, ps, "port out of range 1..65535");
  if (c->p < c->end && !is_space(*c->p) && *c->p != '#')
    return fail(c, c->p, "unexpected character '%c' in the port", *c->p);
  memcpy(*names, h, (size_t)(he - h));
  (*names)[he - h] = 0;
  *host = *names;
  *names += he - h + 1;
  *port = (uint16_t)v;
  return 0;
}

/* entry := name space+ node [space+ address] ; name := 1..NAMING_NAME_MAX printable bytes, no
 * '#'. A node's address, given on several lines, must be the same on each. */
static int parse_line(struct cursor *c, struct naming_hosts *h, char **names) {
  skip_space(c);
  if (at_end(c)) return 0;
  const char *name = c->p;
  while (c->p < c->end && is_name(*c->p)) c->p++;
  size_t nlen = (size_t)(c->p - name);
  if (nlen == 0) return fail(c, c->p, "unexpected byte 0x%02x", (unsigned char)*c->p);
  if (nlen > NAMING_NAME_MAX) return fail(c, name, "name longer than %u bytes", NAMING_NAME_MAX);
  if (c->p < c->end && !is_space(*c->p) && *c->p != '#')
    return fail(c, c->p, "unexpected byte 0x%02x in the name", (unsigned char)*c->p);
  skip_space(c);
  uint16_t node = 0;
  int rc = parse_node(c, &node);
  if (rc) return rc;
  skip_space(c);
  if (h->n == NAMING_ENTRIES_MAX) return fail(c, name, "more than %u entries", NAMING_ENTRIES_MAX);
  struct naming_entry *e = &h->e[h->n];
  *e = (struct naming_entry){.name = *names, .node = node, .line = c->line};
  memcpy(*names, name, nlen);
  (*names)[nlen] = 0;
  *names += nlen + 1;
  if (!at_end(c)) {
    const char *at = c->p;
    rc = parse_addr(c, names, &e->host, &e->port);
    if (rc) return rc;
    skip_space(c);
    if (!at_end(c)) return fail(c, c->p, "unexpected text after the address");
    const struct naming_entry *o = naming_addr(h, node);
    if (o && (o->port != e->port || strcmp(o->host, e->host)))
      return fail(c, at, "node %u is at %s:%u (line %u)", node, o->host, o->port, o->line);
  }
  h->n++;
  return 0;
}

int naming_hosts_parse(const char *text, size_t len, const char *file, struct naming_hosts *h,
                       char *err, size_t errcap) {
  memset(h, 0, sizeof *h);
  if (err && errcap) err[0] = 0;
  struct cursor c = {.file = file ? file : "hosts", .err = err, .errcap = errcap};
  if (len > NAMING_FILE_MAX) {
    c.start = c.p = text;
    c.line = 1;
    return fail(&c, text, "file larger than %u bytes", NAMING_FILE_MAX);
  }
  h->e = calloc(NAMING_ENTRIES_MAX, sizeof *h->e);
  h->names = malloc(len + 1);   /* every name is shorter than its line */
  if (!h->e || !h->names) {
    naming_hosts_free(h);
    return -ENOMEM;
  }
  char *names = h->names;
  const char *p = text, *end = text + len;
  for (unsigned line = 1; p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    c = (struct cursor){.p = p, .end = eol, .file = c.file, .line = line, .start = p,
                        .err = err, .errcap = errcap};
    int rc = (size_t)(eol - p) > NAMING_LINE_MAX
                 ? fail(&c, p + NAMING_LINE_MAX, "line longer than %u bytes", NAMING_LINE_MAX)
             : memchr(p, 0, (size_t)(eol - p))
                 ? fail(&c, memchr(p, 0, (size_t)(eol - p)), "NUL byte")
                 : parse_line(&c, h, &names);
    if (rc) {
      naming_hosts_free(h);
      return rc;
    }
    p = nl ? nl + 1 : end;
  }
  return 0;
}

int naming_hosts_load(const char *path, struct naming_hosts *h, char *err, size_t errcap) {
  memset(h, 0, sizeof *h);
  FILE *f = fopen(path, "re");
  char *buf = f ? malloc(NAMING_FILE_MAX + 1) : NULL;
  size_t n = buf ? fread(buf, 1, NAMING_FILE_MAX + 1, f) : 0;
  int rc = !f ? -errno : !buf ? -ENOMEM : ferror(f) ? -EIO : 0;
  if (f) fclose(f);
  if (rc == 0) rc = naming_hosts_parse(buf, n, path, h, err, errcap);
  else if (err && errcap) snprintf(err, errcap, "%s: %s", path, strerror(-rc));
  free(buf);
  return rc;
}

void naming_hosts_free(struct naming_hosts *h) {
  free(h->e);
  free(h->names);
  memset(h, 0, sizeof *h);
}

int naming_by_name(const struct naming_hosts *h, const char *name, unsigned index) {
  for (unsigned i = 0; i < h->n; i++)
    if (strcmp(h->e[i].name, name) == 0 && index-- == 0) return h->e[i].node;
  return -1;
}

const struct naming_entry *naming_addr(const struct naming_hosts *h, unsigned node) {
  for (unsigned i = 0; i < h->n; i++)
    if (h->e[i].node == node && h->e[i].host) return &h->e[i];
  return NULL;
}

const struct naming_entry *naming_by_node(const struct naming_hosts *h, unsigned node) {
  for (unsigned i = 0; i < h->n; i++)
    if (h->e[i].node == node) return &h->e[i];
  return NULL;
}
