/* PDL parser. Grammar (PANIC Fig. 2 and 4; ';' separates statements, empty ones allowed):
 *   program  = PROGRAM id ':' {VAR var {',' var} ';' | TRIGGERS num {',' num} ';'}
 *              block [';'] {MESSAGE num ':' block [';']} END [';']
 *   block    = BEGIN stmt {';' stmt} END
 *   stmt     = ref '=' expr | IF expr THEN stmt [ELSE stmt] | WHILE expr DO stmt | block
 *            | SEND ref LEN expr AS expr TO expr AT num {':' num} | AWAIT | STOP
 *            | DELIVER ref OFFSET expr INTO expr LEN expr | GET ref OFFSET expr FROM expr LEN expr
 *            | RECEIVE ref OFFSET expr LEN expr | DISPLAY expr | <empty>
 *   expr     = OR of AND of [NOT] comparison of sums of terms of [-] primaries
 * After a syntax error the parser is in panic mode (further errors suppressed) until it
 * resynchronises at a ';', END, or MESSAGE. */
#include "parse.h"

#include <string.h>

struct parser {
  struct lexer lx;
  struct token tok;
  struct diag *d;
  struct arena *a;
  int panic;
  int syntax_errors;
  int eof_reported; /* one complaint about a truncated program is enough */
  int depth; /* nesting of expressions and statements, bounded to keep recursion shallow */
};

#define PDL_MAX_NESTING 200

static int too_deep(struct parser *p) {
  if (p->depth < PDL_MAX_NESTING) return 0;
  if (!p->panic) {
    diag_error(p->d, p->tok.pos, "nesting deeper than %d levels", PDL_MAX_NESTING);
    p->syntax_errors++;
  }
  p->panic = 1;
  return 1;
}

static void next(struct parser *p) { lex_next(&p->lx, &p->tok); }
static int at(const struct parser *p, enum tok k) { return p->tok.kind == k; }

static void syntax_error(struct parser *p, const char *what) {
  if (p->panic || (at(p, T_EOF) && p->eof_reported)) return;
  p->panic = 1;
  p->eof_reported = at(p, T_EOF);
  p->syntax_errors++;
  if (at(p, T_IDENT)) diag_error(p->d, p->tok.pos, "expected %s before '%s'", what, p->tok.text);
  else if (at(p, T_NUM)) diag_error(p->d, p->tok.pos, "expected %s before number %u", what, p->tok.num);
  else diag_error(p->d, p->tok.pos, "expected %s before %s", what, tok_name(p->tok.kind));
}

static int accept(struct parser *p, enum tok k) {
  if (!at(p, k)) return 0;
  next(p);
  return 1;
}

static int expect(struct parser *p, enum tok k) {
  if (accept(p, k)) return 1;
  syntax_error(p, tok_name(k));
  return 0;
}

static uint32_t number(struct parser *p) {
  uint32_t v = p->tok.num;
  if (expect(p, T_NUM)) return v;
  return 0;
}

static struct expr *expr(struct parser *p);
static struct stmt *stmt(struct parser *p);

static struct expr *new_expr(struct parser *p, enum expr_kind k, struct pos pos) {
  struct expr *e = arena_alloc(p->a, sizeof *e);
  e->kind = k;
  e->pos = pos;
  return e;
}

static void ref(struct parser *p, struct ref *r) {
  r->pos = p->tok.pos;
  strcpy(r->name, p->tok.text);
  if (!expect(p, T_IDENT)) return;
  if (accept(p, P_LBRACK)) {
    r->index = expr(p);
    expect(p, P_RBRACK);
  }
}

static struct expr *primary(struct parser *p) {
  struct pos pos = p->tok.pos;
  struct expr *e;
  switch (p->tok.kind) {
  case T_NUM:
    e = new_expr(p, E_NUM, pos);
    e->num = p->tok.num;
    next(p);
    return e;
  case T_IDENT:
    e = new_expr(p, E_REF, pos);
    ref(p, &e->ref);
    return e;
  case K_CLOCK: next(p); return new_expr(p, E_CLOCK, pos);
  case K_MSGLEN: next(p); return new_expr(p, E_MSGLEN, pos);
  case P_LPAREN:
    next(p);
    e = expr(p);
    expect(p, P_RPAREN);
    return e;
  default:
    syntax_error(p, "an expression");
    return new_expr(p, E_NUM, pos);
  }
}

static struct expr *unary(struct parser *p) {
  struct pos pos = p->tok.pos;
  enum tok op = p->tok.kind;
  if ((op == P_MINUS && accept(p, P_MINUS)) || (op == K_NOT && accept(p, K_NOT))) {
    struct expr *e = new_expr(p, E_UNARY, pos);
    e->op = op;
    if (too_deep(p)) {
      e->a = new_expr(p, E_NUM, pos);
      return e;
    }
    p->depth++;
    e->a = unary(p);
    p->depth--;
    return e;
  }
  return primary(p);
}

static int is_op(enum tok k, int level) {
  switch (level) {
  case 0: return k == K_OR;
  case 1: return k == K_AND;
  case 2: return k == P_ASSIGN || k == P_EQ || k == P_NE || k == P_LT || k == P_LE ||
                 k == P_GT || k == P_GE;
  case 3: return k == P_PLUS || k == P_MINUS;
  default: return k == P_STAR || k == P_SLASH || k == P_PERCENT || k == K_MOD;
  }
}

/* Binary operators by precedence level; comparisons do not chain. */
static struct expr *binary(struct parser *p, int level) {
  if (level == 5) return unary(p);
  struct expr *l = binary(p, level + 1);
  while (is_op(p->tok.kind, level)) {
    struct expr *e = new_expr(p, E_BINARY, p->tok.pos);
    e->op = p->tok.kind == K_MOD ? P_PERCENT : p->tok.kind == P_ASSIGN ? P_EQ : p->tok.kind;
    next(p);
    e->a = l;
    e->b = binary(p, level + 1);
    l = e;
    if (level == 2) break;
  }
  return l;
}

static struct expr *expr(struct parser *p) {
  if (too_deep(p)) return new_expr(p, E_NUM, p->tok.pos);
  p->depth++;
  struct expr *e = binary(p, 0);
  p->depth--;
  return e;
}

/* AT a:b:...:h, up to eight bytes, most significant first; a single number stands alone. */
static uint64_t address(struct parser *p) {
  uint64_t v = p->tok.num;
  struct pos first = p->tok.pos;
  int parts = 1;
  if (!expect(p, T_NUM)) return 0;
  if (!at(p, P_COLON)) return v;
  if (v > 255) diag_error(p->d, first, "address byte %llu out of range 0..255", (unsigned long long)v);
  while (accept(p, P_COLON)) {
    struct pos pos = p->tok.pos;
    uint32_t b = number(p);
    if (b > 255) diag_error(p->d, pos, "address byte %u out of range 0..255", b);
    if (++parts == 9) diag_error(p->d, pos, "address has more than 8 bytes");
    v = v << 8 | (b & 255u);
  }
  return v;
}

static struct stmt *new_stmt(struct parser *p, enum stmt_kind k, struct pos pos) {
  struct stmt *s = arena_alloc(p->a, sizeof *s);
  s->kind = k;
  s->pos = pos;
  return s;
}

/* DELIVER/GET/RECEIVE ref OFFSET e [INTO|FROM e] LEN e */
static void transfer(struct parser *p, struct stmt *s, enum tok seg_kw) {
  ref(p, &s->ref);
  expect(p, K_OFFSET);
  s->e[X_OFF] = expr(p);
  if (seg_kw != T_EOF) {
    expect(p, seg_kw);
    s->e[X_SEG] = expr(p);
  }
  expect(p, K_LEN);
  s->e[X_LEN] = expr(p);
}

static struct stmt *block(struct parser *p);

static struct stmt *stmt1(struct parser *p);

static struct stmt *stmt(struct parser *p) {
  if (too_deep(p)) return NULL;
  p->depth++;
  struct stmt *s = stmt1(p);
  p->depth--;
  return s;
}

static struct stmt *stmt1(struct parser *p) {
  struct pos pos = p->tok.pos;
  struct stmt *s;
  switch (p->tok.kind) {
  case T_IDENT:
    s = new_stmt(p, S_ASSIGN, pos);
    ref(p, &s->ref);
    expect(p, P_ASSIGN);
    s->value = expr(p);
    return s;
  case K_IF:
    next(p);
    s = new_stmt(p, S_IF, pos);
    s->value = expr(p);
    expect(p, K_THEN);
    s->body = stmt(p);
    if (accept(p, K_ELSE)) s->els = stmt(p);
    return s;
  case K_WHILE:
    next(p);
    s = new_stmt(p, S_WHILE, pos);
    s->value = expr(p);
    expect(p, K_DO);
    s->body = stmt(p);
    return s;
  case K_BEGIN: return block(p);
  case K_SEND:
    next(p);
    s = new_stmt(p, S_SEND, pos);
    ref(p, &s->ref);
    expect(p, K_LEN);
    s->e[X_LEN] = expr(p);
    expect(p, K_AS);
    s->e[X_TRIG] = expr(p);
    expect(p, K_TO);
    s->e[X_PROG] = expr(p);
    expect(p, K_AT);
    s->addr = address(p);
    return s;
  case K_DELIVER: next(p); s = new_stmt(p, S_DELIVER, pos); transfer(p, s, K_INTO); return s;
  case K_GET: next(p); s = new_stmt(p, S_GET, pos); transfer(p, s, K_FROM); return s;
  case K_RECEIVE: next(p); s = new_stmt(p, S_RECEIVE, pos); transfer(p, s, T_EOF); return s;
  case K_DISPLAY:
    next(p);
    s = new_stmt(p, S_DISPLAY, pos);
    s->value = expr(p);
    return s;
  case K_AWAIT: next(p); return new_stmt(p, S_AWAIT, pos);
  case K_STOP: next(p); return new_stmt(p, S_STOP, pos);
  default: syntax_error(p, "a statement"); return NULL;
  }
}

/* Skips to the end of the broken statement: a ';' (consumed) or END/MESSAGE at this level. */
static void sync(struct parser *p) {
  int depth = 0;
  while (!at(p, T_EOF)) {
    if (depth == 0 && (at(p, K_END) || at(p, K_MESSAGE))) break;
    if (depth == 0 && accept(p, P_SEMI)) break;
    if (at(p, K_BEGIN)) depth++;
    if (at(p, K_END)) depth--;
    next(p);
  }
  p->panic = 0;
}

static struct stmt *block(struct parser *p) {
  struct stmt *s = new_stmt(p, S_BLOCK, p->tok.pos), **tail = &s->body;
  expect(p, K_BEGIN);
  while (!at(p, K_END) && !at(p, T_EOF) && !at(p, K_MESSAGE)) {
    if (accept(p, P_SEMI)) continue;
    struct stmt *st = stmt(p);
    if (st != NULL) {
      *tail = st;
      tail = &st->next;
    }
    if (!p->panic && !at(p, P_SEMI) && !at(p, K_END) && !at(p, T_EOF))
      syntax_error(p, "';'");
    if (p->panic) sync(p);
  }
  expect(p, K_END);
  return s;
}

static void var_decls(struct parser *p, struct program *prog) {
  struct var_list **tail = &prog->vars;
  while (*tail != NULL) tail = &(*tail)->next;
  do {
    struct var_list *vl = arena_alloc(p->a, sizeof *vl);
    vl->v.pos = p->tok.pos;
    strcpy(vl->v.name, p->tok.text);
    if (!expect(p, T_IDENT)) return;
    if (accept(p, P_LBRACK)) {
      struct pos pos = p->tok.pos;
      vl->v.size = number(p);
      if (vl->v.size == 0 && !p->panic) diag_error(p->d, pos, "array size must be at least 1");
      expect(p, P_RBRACK);
    }
    *tail = vl;
    tail = &vl->next;
  } while (accept(p, P_COMMA));
}

static void trigger_decls(struct parser *p, struct program *prog) {
  struct trigger_decl **tail = &prog->triggers;
  while (*tail != NULL) tail = &(*tail)->next;
  do {
    struct trigger_decl *t = arena_alloc(p->a, sizeof *t);
    t->pos = p->tok.pos;
    t->num = number(p);
    if (p->panic) return;
    *tail = t;
    tail = &t->next;
  } while (accept(p, P_COMMA));
}

static void declarations(struct parser *p, struct program *prog) {
  while (at(p, K_VAR) || at(p, K_TRIGGERS)) {
    int is_var = at(p, K_VAR);
    next(p);
    if (is_var) var_decls(p, prog);
    else trigger_decls(p, prog);
    if (!p->panic) expect(p, P_SEMI);
    if (p->panic) {
      while (!at(p, T_EOF) && !at(p, K_BEGIN) && !at(p, K_VAR) && !at(p, K_TRIGGERS) &&
             !accept(p, P_SEMI))
        next(p);
      p->panic = 0;
    }
  }
}

static void messages(struct parser *p, struct program *prog) {
  struct message **tail = &prog->messages;
  while (at(p, K_MESSAGE)) {
    struct message *m = arena_alloc(p->a, sizeof *m);
    m->pos = p->tok.pos;
    next(p);
    m->num = number(p);
    expect(p, P_COLON);
    p->panic = 0;
    m->body = block(p);
    p->panic = 0;
    accept(p, P_SEMI);
    *tail = m;
    tail = &m->next;
  }
}

struct program *parse_program(struct diag *d, struct arena *a, int *syntax_errors) {
  struct parser p = {.d = d, .a = a};
  struct program *prog = arena_alloc(a, sizeof *prog);
  lex_init(&p.lx, d);
  next(&p);
  prog->pos = p.tok.pos;
  expect(&p, K_PROGRAM);
  strcpy(prog->name, p.tok.text);
  if (!p.panic) expect(&p, T_IDENT);
  if (!p.panic) expect(&p, P_COLON);
  p.panic = 0;
  declarations(&p, prog);
  prog->init_pos = p.tok.pos;
  prog->init = block(&p);
  p.panic = 0;
  accept(&p, P_SEMI);
  messages(&p, prog);
  if (expect(&p, K_END)) {
    accept(&p, P_SEMI);
    if (!at(&p, T_EOF)) syntax_error(&p, "end of file");
  }
  *syntax_errors = p.syntax_errors;
  return prog;
}
