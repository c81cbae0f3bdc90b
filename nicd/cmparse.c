/* cmparse.c: the connection manager's request lines (CONNECT.md), parsed strictly
 * (lineparse.c) and apart from what they do (cm.c), so that the parser can be fuzzed alone. */
#define _GNU_SOURCE
#include <string.h>

#include "nicd.h"

/* The shape of each request: its verb, then 'n' (a number) or 's' (a string) per field. */
static const struct line_shape shapes[] = {
    {"PING", CM_PING, ""},         {"RESOLVE", CM_RESOLVE, "s"}, {"STATS", CM_STATS, "n"},
    {"WAIT", CM_WAIT, "ns"},       {"CONNECT", CM_CONNECT, "nnnss"},
    {"ACCEPT", CM_ACCEPT, "nnn"},  {"REJECT", CM_REJECT, "n"},   {"PASS", CM_PASS, "n"},
    {"DISCONNECT", CM_DISCONNECT, "nn"}, {"FABRIC", CM_FABRIC, ""}, {"PEER", CM_PEER, "n"},
};

enum cm_verb cm_parse(char *line, struct cm_req *r) {
  memset(r, 0, sizeof *r);
  r->verb = (enum cm_verb)line_parse(line, shapes, sizeof shapes / sizeof shapes[0], CM_BAD, r->n,
                                     r->s);
  return r->verb;
}
