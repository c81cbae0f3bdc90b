/* ast.h: the syntax tree of an ESM system, as the parser builds it and semantic analysis
 * annotates it. Lists are singly linked through `next`, in source order. */
#ifndef ESM_AST_H
#define ESM_AST_H

#include <stdbool.h>
#include "util.h"

typedef struct Expr Expr;
typedef struct Action Action;
typedef struct Var Var;
typedef struct Machine Machine;
typedef struct State State;
typedef struct Sym Sym;

/* A value in both worlds: the firmware's real value (c) and the model's bound (m). */
typedef struct {
  long c, m;
} Val2;

typedef enum { TY_INT, TY_BOOL, TY_EVENT } TypeKind;

typedef struct {
  TypeKind kind;
  Expr *lo, *hi;     /* TY_INT: declared range, constant expressions */
  Val2 lo_v, hi_v;   /* filled by semantic analysis */
  Loc loc;
} Type;

typedef enum {
  EX_NUM,      /* num */
  EX_BOOL,     /* num is 0 or 1 */
  EX_NAME,     /* name; sym set by sema */
  EX_FIELD,    /* lhs.name: a variable of another machine (lhs is EX_NAME of a machine) */
  EX_INDEX,    /* lhs[rhs] */
  EX_UNARY,    /* op lhs: '!' or '-' */
  EX_BINARY,   /* lhs op rhs */
  EX_IN,       /* machine in {states}: name is the machine, states the list */
  EX_CALL,     /* builtin or hardware condition: name(args) */
} ExprKind;

typedef enum {
  OP_NONE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_NOT, OP_NEG,
} Op;

typedef struct NameList {
  struct NameList *next;
  const char *name;
  Loc loc;
  State *state;   /* EX_IN: resolved state */
} NameList;

struct Expr {
  ExprKind kind;
  Loc loc;
  Op op;
  long num;
  const char *name;
  Expr *lhs, *rhs;
  Expr *args;      /* EX_CALL arguments, linked through next */
  NameList *states;/* EX_IN */
  Expr *next;      /* argument lists */
  Sym *sym;        /* resolved name (EX_NAME, EX_FIELD, EX_CALL, EX_IN machine) */
};

typedef enum {
  AC_ASSIGN,   /* lhs op= rhs, op is OP_NONE, OP_ADD or OP_SUB */
  AC_RAISE,    /* raise expr (an event name or an event-typed variable) */
  AC_RELEASE,  /* release resource (name) */
  AC_HWCALL,   /* hardware action name(args) */
  AC_PUSH,     /* push(queue, rhs) */
  AC_POP,      /* pop(queue, lhs) */
  AC_IF,       /* if (cond) { then } else { els } */
  AC_ASSERT,   /* assert cond */
  AC_CHOOSE,   /* choose lhs in lo..hi (environment machines only) */
} ActionKind;

struct Action {
  ActionKind kind;
  Loc loc;
  Op op;
  Expr *lhs, *rhs, *cond, *lo, *hi;
  Expr *args;
  const char *name;
  Sym *sym;
  Action *then, *els;
  Action *next;
};

typedef enum {
  TR_EVENT,    /* on event */
  TR_ACQUIRE,  /* on acquire resource */
  TR_WHEN,     /* when: no trigger, taken when the guard holds */
  TR_HWMSG,    /* on hw_action(v1, v2): an environment machine receives a hardware request */
} TriggerKind;

typedef struct Transition {
  struct Transition *next;
  Loc loc;
  TriggerKind trig;
  const char *trig_name;   /* event, resource or hardware action */
  Loc trig_loc;
  NameList *binds;         /* TR_HWMSG: variables the request's arguments are stored in */
  Sym *trig_sym;
  Expr *guard;             /* may be NULL */
  Action *actions;
  const char *target_name;
  Loc target_loc;
  State *target;           /* resolved */
  int index;               /* position within the machine, from 0 */
} Transition;

enum { ST_INITIAL = 1, ST_YIELD = 2, ST_REST = 4 };

struct State {
  State *next;
  Loc loc;
  const char *name;
  int flags;
  Transition *trans;
  Machine *machine;
  int index;               /* position within the machine, from 0 */
};

struct Var {
  Var *next;
  Loc loc;
  const char *name;
  Type type;
  Expr *size;              /* array length (constant expression) or NULL */
  Val2 size_v;
  Expr *init;              /* may be NULL: the range's low end, or false */
  bool ghost;              /* exists only in the model */
  Machine *owner;          /* NULL for system-level variables */
  const char *lock_name;   /* `lock RES`: written from both processors under RES, or NULL */
  Loc lock_loc;
  struct Resource *lock;   /* resolved lock_name */
  int writers;             /* bit p: a machine on processor p writes it (sema_cpu.c) */
};

struct Machine {
  Machine *next;
  Loc loc;
  const char *name;
  bool env;                /* environment machine: emitted only to the model */
  Var *vars;
  State *states;
  State *initial;
  int id;                  /* 1-based over all machines, firmware first in source order */
  int nstates;
  int cpu;                 /* the processor a firmware machine runs on (`processor N: M;`) */
};

typedef struct Const {
  struct Const *next;
  Loc loc;
  const char *name;
  Expr *value, *model;     /* model may be NULL: same as value */
  Val2 v;
} Const;

typedef struct Event {
  struct Event *next;
  Loc loc;
  const char *name;
  Expr *capacity;          /* NULL: 1 */
  Val2 cap_v;
  int index;               /* priority: 0 is the highest */
  Machine *owner;          /* the machine that handles it (sema) */
} Event;

typedef struct Resource {
  struct Resource *next;
  Loc loc;
  const char *name;
  int index;
} Resource;

typedef struct Param {
  struct Param *next;
  Loc loc;
  const char *name;
  Type type;
} Param;

typedef struct HwAction {
  struct HwAction *next;
  Loc loc;
  const char *name;
  Param *params;
  int nparams;
  const char *env_name;    /* environment machine that serves the request in the model */
  Loc env_loc;
  Machine *env;
  Expr *depth;             /* request queue depth in the model, NULL: 1 */
  Val2 depth_v;
} HwAction;

/* `hardware condition` (type TY_BOOL) or `hardware value` (TY_INT: a register the firmware
 * reads, such as a DMA pointer; its model expression is mandatory). */
typedef struct HwCond {
  struct HwCond *next;
  Loc loc;
  const char *name;
  Expr *model;             /* NULL: the model chooses freely (conditions only) */
  Type type;
} HwCond;

typedef struct Queue {
  struct Queue *next;
  Loc loc;
  const char *name;
  Expr *depth;
  Val2 depth_v;
  Type type;
} Queue;

/* `processor N: M, ...;`: a static partition of the firmware machines over processors. */
typedef struct ProcDecl {
  struct ProcDecl *next;
  Loc loc;
  long num;
  NameList *machines;
} ProcDecl;

typedef enum { PR_ALWAYS, PR_EVENTUALLY, PR_LEADSTO, PR_REACHABLE } PropKind;

typedef struct Property {
  struct Property *next;
  Loc loc;
  PropKind kind;
  const char *name;
  Expr *p, *q;             /* q: leadsto only */
} Property;

typedef struct System {
  const char *name;
  Loc loc;
  Const *consts;
  Event *events;
  Resource *resources;
  HwAction *hwactions;
  HwCond *hwconds;
  Queue *queues;
  Var *globals;
  Machine *machines;
  Property *props;
  ProcDecl *procs;
  int nevents, nmachines, nresources;
  int ncpus;               /* 1, or 2 with a `processor` partition */
  bool unlocked_shared;    /* esmc --unlocked-shared (mutation tests only): no lock required */
} System;

/* What a name refers to, after semantic analysis. */
typedef enum {
  SYM_CONST, SYM_VAR, SYM_EVENT, SYM_RESOURCE, SYM_HWACTION, SYM_HWCOND, SYM_QUEUE,
  SYM_MACHINE, SYM_STATE, SYM_BUILTIN,
} SymKind;

struct Sym {
  SymKind kind;
  const char *name;
  union {
    Const *cnst;
    Var *var;
    Event *event;
    Resource *res;
    HwAction *hwa;
    HwCond *hwc;
    Queue *queue;
    Machine *machine;
    State *state;
  } u;
};

#endif
