/* peerparse.c: one line of the nicd-to-nicd control protocol (CONNECT.md, "Between nicds"),
 * parsed strictly (lineparse.c) and apart from what it does (peer.c), so that it can be fuzzed
 * alone. */
#define _GNU_SOURCE
#include <string.h>

#include "nicd.h"

/* Each line: its verb, then 'n' (a number) or 's' (a string) per field. */
static const struct line_shape shapes[] = {
    {"HB", PEER_HB, ""},           {"HELLO", PEER_HELLO, "n"}, {"CONN", PEER_CONN, "nnnnssn"},
    {"WDRAW", PEER_WDRAW, "n"},    {"ACC", PEER_ACC, "nnnnn"},  {"REJ", PEER_REJ, "n"},
    {"FAIL", PEER_FAIL, "ns"},     {"DONE", PEER_DONE, "nn"},  {"DISC", PEER_DISC, "nnnnn"},
};

enum peer_verb peer_parse(char *line, struct peer_msg *m) {
  memset(m, 0, sizeof *m);
  m->verb = (enum peer_verb)line_parse(line, shapes, sizeof shapes / sizeof shapes[0], PEER_BAD,
                                       m->n, m->s);
  return m->verb;
}
