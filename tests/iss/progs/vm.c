/* vm.c: the PANIC VM (firmware/vm, freestanding) running its conformance suite, the cases
 * that tests/iss/vm_cases_gen.c extracted: load (and verify) each module, feed it the test's
 * input commands through recording NIC services like tests/pdl/nic_host.c, and compare the
 * record with the expected one. Prints "PASS name hash" per case; built natively and for
 * LANai the outputs must be identical, and every case must pass (exit status 1 otherwise).
 * The VM's data words have the same byte view on every NIC (firmware/vm/FORMAT.md), so the
 * LANai is held to the very expectations of the host. */
#include "io.h"
#include "vm.h"

struct vm_case {
  const char *name;
  const uint8_t *img;
  uint32_t len;
  const char *input, *expect, *verr;
};

#define EXPECT(t) ((t)->expect)
#include "vm_cases.h"

#define HOST_SEGMENTS 8
#define HOST_SEG_SIZE 4096

/* ---- a text buffer the services record into ---- */
static char rec[32768];
static uint32_t rec_len;
static bool recording;

static void out_c(char ch)
{
  if (rec_len < sizeof rec - 1) rec[rec_len++] = ch;
}
static void out_s(const char *s)
{
  while (*s) out_c(*s++);
}
static void out_u(uint32_t v)
{
  char d[12];
  int n = 0;
  do d[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
  while (n) out_c(d[--n]);
}
static void out_i(int32_t v)
{
  if (v < 0) {
    out_c('-');
    out_u(0u - (uint32_t)v);
  } else {
    out_u((uint32_t)v);
  }
}
static void out_x(uint64_t v, int digits)
{
  for (int i = digits - 1; i >= 0; i--) out_c("0123456789abcdef"[v >> (4 * i) & 15]);
}

/* ---- the host: NIC services that record each call (tests/pdl/nic_host.c) ---- */
static struct {
  uint32_t clock;
  int fail_next;
  uint8_t mem[HOST_SEGMENTS][HOST_SEG_SIZE];
} host;

static int failing(void)
{
  int f = host.fail_next;
  host.fail_next = 0;
  return f;
}
static int in_host(uint32_t seg, uint32_t off, uint32_t len)
{
  return seg < HOST_SEGMENTS && off <= HOST_SEG_SIZE && len <= HOST_SEG_SIZE - off;
}
static void out_data(const uint8_t *d, uint32_t len)
{
  for (uint32_t i = 0; i < len; i++) out_x(d[i], 2);
  out_c('\n');
}
static int h_send(void *ctx, const uint8_t *d, uint32_t len, uint32_t trig, uint32_t prog,
                  uint64_t addr)
{
  (void)ctx;
  if (recording) {
    out_s("send trigger="); out_u(trig); out_s(" program="); out_u(prog);
    out_s(" addr="); out_x(addr, 16); out_s(" len="); out_u(len); out_s(" data=");
    out_data(d, len);
  }
  return failing() ? -1 : 0;
}
static void h_await(void *ctx)
{
  (void)ctx;
  if (recording) out_s("await\n");
}
static int h_deliver(void *ctx, const uint8_t *d, uint32_t len, uint32_t seg, uint32_t off)
{
  (void)ctx;
  if (recording) {
    out_s("deliver segment="); out_u(seg); out_s(" offset="); out_u(off);
    out_s(" len="); out_u(len); out_s(" data=");
    out_data(d, len);
  }
  if (failing() || !in_host(seg, off, len)) return -1;
  for (uint32_t i = 0; i < len; i++) host.mem[seg][off + i] = d[i];
  return 0;
}
static int h_get(void *ctx, uint8_t *d, uint32_t len, uint32_t seg, uint32_t off)
{
  (void)ctx;
  if (recording) {
    out_s("get segment="); out_u(seg); out_s(" offset="); out_u(off);
    out_s(" len="); out_u(len); out_c('\n');
  }
  if (failing() || !in_host(seg, off, len)) return -1;
  for (uint32_t i = 0; i < len; i++) d[i] = host.mem[seg][off + i];
  return 0;
}
static uint32_t h_clock(void *ctx)
{
  (void)ctx;
  uint32_t t = host.clock;
  host.clock += 10;
  return t;
}
static void h_display(void *ctx, int32_t v)
{
  (void)ctx;
  if (recording) {
    out_s("display ");
    out_i(v);
    out_c('\n');
  }
}
static const struct vm_services services = {0, h_send, h_await, h_deliver, h_get, h_clock,
                                            h_display};

/* ---- the input commands (tests/pdl/conformance.c) ---- */
static bool starts(const char *s, const char *p)
{
  while (*p)
    if (*s++ != *p++) return false;
  return true;
}
static const char *find(const char *s, const char *end, const char *key)
{
  for (; s < end; s++)
    if (starts(s, key)) return s;
  return 0;
}
/* strtoul with base 0 (decimal, 0x hex, 0 octal). */
static uint32_t num(const char **sp)
{
  const char *s = *sp;
  while (*s == ' ') s++;
  uint32_t base = 10, v = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s += 2;
  else if (s[0] == '0') base = 8;
  for (;; s++) {
    int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
          : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;
    if (d >= (int)base) break;
    v = v * base + (uint32_t)d;
  }
  *sp = s;
  return v;
}
static uint32_t word_after(const char *line, const char *end, const char *key, uint32_t dflt)
{
  const char *k = find(line, end, key);
  if (!k) return dflt;
  while (*key++) k++;
  return num(&k);
}
static int hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}
/* Hex digit pairs from s up to end (or a space, unless spaces), into b; the byte count. */
static uint32_t hex_bytes(const char *s, const char *end, uint8_t *b, uint32_t cap,
                          bool spaces)
{
  uint32_t n = 0;
  int hi = -1;
  for (; s < end && n < cap; s++) {
    if (*s == ' ') {
      if (!spaces) break;
      continue;
    }
    int v = hexval(*s);
    if (v < 0) break;
    if (hi < 0) hi = v;
    else b[n++] = (uint8_t)(hi << 4 | v), hi = -1;
  }
  return n;
}

static const char *const result_states[] = {"empty", "loaded", "waiting", "stopped"};
static uint8_t payload[4096];

static void command(const char *line, const char *end, struct vm_program *p)
{
  uint32_t budget = word_after(line, end, " budget ", 1000000);
  enum vm_result r;
  if (starts(line, "start")) {
    r = vm_start(p, &services, budget);
  } else if (starts(line, "message ")) {
    const char *s = line + 8;
    uint32_t trig = num(&s), len = 0;
    const char *pl = find(line, end, " payload ");
    if (pl) len = hex_bytes(pl + 9, end, payload, sizeof payload, false);
    struct vm_msg m = {payload, len};
    r = VM_R_NOT_READY;
    for (uint32_t k = word_after(line, end, " repeat ", 1); k > 0; k--) {
      r = vm_dispatch(p, trig, &m, &services, budget);
      if (k > 1 && recording) {
        out_s("result ");
        out_s(vm_result_name(r));
        out_c('\n');
      }
    }
  } else if (starts(line, "host ")) {
    const char *s = line + 5;
    uint32_t seg = num(&s), off = num(&s);
    while (*s == ' ') s++;
    uint8_t b[256];
    uint32_t n = hex_bytes(s, end, b, sizeof b, true);
    for (uint32_t i = 0; i < n && seg < HOST_SEGMENTS && off + i < HOST_SEG_SIZE; i++)
      host.mem[seg][off + i] = b[i];
    return;
  } else if (end - line == 4 && starts(line, "fail")) {
    host.fail_next = 1;
    return;
  } else if (starts(line, "trace ")) {
    recording = !(end - line == 9 && starts(line + 6, "off"));
    return;
  } else if (end - line == 5 && starts(line, "state")) {
    out_s("state ");
    out_s(result_states[p->state]);
    out_c('\n');
    return;
  } else {
    out_s("bad input command\n");
    return;
  }
  if (recording) {
    out_s("result ");
    out_s(vm_result_name(r));
    out_c('\n');
  }
}

static uint64_t arena[16384];

static bool same(const char *want)
{
  uint32_t n = rec_len;
  while (n && (rec[n - 1] == '\n' || rec[n - 1] == ' ' || rec[n - 1] == '\r')) n--;
  for (uint32_t i = 0; i < n; i++)
    if (want[i] != rec[i]) return false;
  return want[n] == 0;
}

static bool run_case(const struct vm_case *t)
{
  struct vm_program p;
  struct vm_diag d;
  size_t need = vm_mem_needed(t->img, t->len);
  rec_len = 0;
  if (need > sizeof arena) return false;
  bool loaded = vm_load(&p, t->img, t->len, arena, sizeof arena, &d);
  if (t->verr) {
    out_s(vm_err_name(d.code));
    out_s(" at ");
    out_u(d.offset);
    return !loaded && same(t->verr);
  }
  if (!loaded) return false;
  for (uint32_t s = 0; s < HOST_SEGMENTS; s++)
    for (uint32_t i = 0; i < HOST_SEG_SIZE; i++) host.mem[s][i] = 0;
  host.clock = 1000;
  host.fail_next = 0;
  recording = true;
  const char *line = t->input;
  while (*line) {
    const char *end = line;
    while (*end && *end != '\n') end++;
    const char *q = line;
    while (q < end && *q == ' ') q++;
    if (q < end && *line != '#') command(line, end, &p);
    line = *end ? end + 1 : end;
  }
  return EXPECT(t) && same(EXPECT(t));
}

int main(void)
{
  int failed = 0;
  for (int i = 0; i < VM_NCASES; i++) {
    bool ok = run_case(vm_cases[i]);
    uint32_t hsh = FNV_INIT;
    for (uint32_t k = 0; k < rec_len; k++) hsh = fnv(hsh, (uint8_t)rec[k]);
    io_puts(ok ? "PASS " : "FAIL ");
    io_line(vm_cases[i]->name, hsh);
    if (!ok) { /* the record, for the diff */
      rec[rec_len] = 0;
      io_puts(rec);
      io_putc('\n');
    }
    failed += !ok;
  }
  io_puts(failed ? "some cases failed\n" : "all cases passed\n");
  return failed != 0;
}
