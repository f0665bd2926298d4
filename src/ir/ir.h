/* ir.h: the module IR that the front end builds and lowering consumes.
 *
 * A Module holds module-scope variables and functions. A Function holds its
 * parameters, its declarations (registers and variables of every block,
 * already resolved: block scoping is the parser's business, so an Operand
 * points straight at its Symbol), a flat array of instructions, and labels
 * resolved to instruction indices. Everything lives in the module's arena.
 *
 * Terms follow the PTX ISA 9.0: state space (§5.1), type (§5.2), variable
 * (§5.4), instruction, modifier, operand (§6). */
#ifndef PTXVM_IR_H
#define PTXVM_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/arena.h"

/* ---- types (types.def) ---- */
typedef enum {
  TY_NONE = 0,
#define X(e, name, size, kind) e,
#include "types.def"
#undef X
  TY_COUNT
} Type;

typedef enum { K_NONE, K_B, K_U, K_S, K_F, K_P, K_A } TypeKind;

const char *type_name(Type t);          /* "u32"; "" for TY_NONE */
int type_size(Type t);                  /* bytes; 0 for pred and sub-byte */
TypeKind type_kind(Type t);
Type type_lookup(const char *name, int len);  /* name without the dot */

/* ---- state spaces (§5.1) ---- */
#define STATE_SPACES(X) \
  X(SP_NONE, "")  X(SP_REG, "reg") X(SP_SREG, "sreg") X(SP_CONST, "const") \
  X(SP_GLOBAL, "global") X(SP_LOCAL, "local") X(SP_PARAM, "param") \
  X(SP_SHARED, "shared") X(SP_TEX, "tex") X(SP_GENERIC, "generic")
typedef enum {
#define X(e, s) e,
  STATE_SPACES(X)
#undef X
  SP_COUNT
} Space;
const char *space_name(Space s);

/* ---- instruction families: which src/exec file owns the semantics ---- */
#define FAMILIES(X) \
  X(INT) X(FLOAT) X(HALF) X(LOGIC) X(CMP) X(CVT) X(MOV) X(MEM) X(ATOM) \
  X(CTRL) X(SYNC) X(WARP) X(MBAR) X(ASYNC) X(TEX) X(MMA) X(VIDEO) X(MISC)
typedef enum {
#define X(f) FAM_##f,
  FAMILIES(X)
#undef X
  FAM_COUNT
} Family;

/* ---- opcodes (opcodes.def): one per row ---- */
typedef enum {
#define X(id, mn, fam, mods, opds, sm, ptx, flags, meaning) OP_##id,
#include "opcodes.def"
#undef X
  OP_COUNT
} Opcode;

/* Properties of an instruction, the FLAGS column of opcodes.def (its header
 * says what each means there). Code asks op_has(op, OPF_...), never lists
 * opcodes. */
typedef enum {
  OPF_CONV = 1 << 0,    /* must execute converged: every non-exited lane of the warp */
  OPF_SCHED = 1 << 1,   /* scheduling point: a perturbed lane group gives way before it */
  OPF_FX = 1 << 2,      /* an effect the spin detector must see (spin.c exec_effect) */
  OPF_GONE = 1 << 3,    /* removed for .target sm_70 and higher from PTX ISA 6.4 */
  OPF_DROP = 1 << 4,    /* sub-operation: mbarrier arrive_drop */
  OPF_NOCOMP = 1 << 5,  /* sub-operation: mbarrier .noComplete arrive */
  OPF_TX = 1 << 6,      /* sub-operation: mbarrier arrive with expect_tx */
  OPF_NORES = 1 << 7,   /* sub-operation: red, atom without a result */
} OpFlag;

typedef struct OpInfo {
  const char *name;       /* "OP" id for debugging */
  const char *mnemonic;   /* "bar.warp.sync" */
  Family family;
  const char *mods;       /* modifier pattern */
  const char *opds;       /* operand pattern */
  int min_sm, min_ptx;
  unsigned flags;         /* OPF_* */
  const char *meaning;    /* one line: what it computes */
} OpInfo;
extern const OpInfo op_info[OP_COUNT];

/* Whether opcode op has every property of `flags` (OPF_*). */
static inline bool op_has(int op, unsigned flags) { return (op_info[op].flags & flags) == flags; }

/* ---- symbols ---- */
typedef enum {
  SYM_REG,       /* .reg (also predicates) */
  SYM_SREG,      /* predefined special register: %tid, %laneid, ... */
  SYM_VAR,       /* variable in an addressable state space, or a .param */
  SYM_FUNC,      /* .entry or .func */
  SYM_LABEL,     /* instruction label */
  SYM_PROTO,     /* .callprototype */
  SYM_TARGETS,   /* .branchtargets list */
} SymKind;

typedef struct Function Function;
typedef struct Operand Operand;

/* One element of a variable's initializer (§5.4.4). */
typedef struct InitElem {
  enum { INIT_INT, INIT_FLOAT, INIT_ADDR } kind;
  bool generic;          /* generic(var) */
  int64_t mask_shift;    /* mask form 0xFF(var): bytes shifted out; -1 if none */
  struct Symbol *sym;    /* INIT_ADDR */
  int64_t ival;          /* INIT_INT value, or INIT_ADDR offset */
  double fval;
  uint32_t line, col;
} InitElem;

typedef struct Symbol {
  const char *name;
  SymKind kind;
  Space space;
  Type type;
  uint8_t vec;             /* 1, 2, 4 or 8 (.v2 .v4 .v8) */
  bool is_extern, is_visible, is_weak, is_unsized;
  bool is_common;          /* .common (§11.6.4): a .global merged across linked
                              modules, the largest one chosen */
  bool is_managed;         /* .attribute(.managed) (§5.4.8): a .global in memory
                              the host reaches at the same address */
  uint32_t align;          /* bytes; 0 = natural */
  Space ptr_space;         /* kernel parameters: .ptr .space .align N */
  uint32_t ptr_align;
  int ndims;
  uint64_t dims[4];        /* array dimensions; 0 for an unsized dimension */
  uint64_t size;           /* total bytes (element size * vec * elements) */
  uint64_t offset;         /* parameters: byte offset in their list, each at
                              its alignment (a kernel's: in the launch's
                              parameter buffer); validate_params */
  InitElem *init;          /* flattened initializer */
  int ninit;
  bool has_init;
  int slot;                /* registers: index in the function's register list */
  int target;              /* labels: instruction index (-1 until defined) */
  int sreg_comps;          /* special registers: 0 scalar, 3 = .x .y .z, 4 = .x..w */
  Function *func;          /* SYM_FUNC, SYM_PROTO: the signature */
  struct Symbol **targets; /* SYM_TARGETS: labels */
  struct Symbol *next_def; /* labels: the same name defined in another { } block */
  int ntargets;
  uint32_t line, col;
  bool used;
} Symbol;

/* ---- operands (§6.3 – §6.6) ---- */
typedef enum {
  OPD_REG,      /* register or special register; comp selects .x/.y/.z/.w */
  OPD_IMM,      /* integer immediate */
  OPD_FIMM,     /* floating-point immediate; OPF_HEXF for 0f/0d forms, OPF_F32 for 0f */
  OPD_SYM,      /* a variable, function or label name; ival = byte offset */
  OPD_ADDR,     /* [base+off]: base is sym (reg or var) or NULL ([imm]);
                   or a bracketed list (tex) when n > 0 */
  OPD_VEC,      /* {a, b, ...}: elems, n */
  OPD_PAIR,     /* d|p: elems[0], elems[1] */
  OPD_LIST,     /* (a, b, ...) in call */
  OPD_SINK,     /* _ */
} OpdKind;

enum { OPF_NEG = 1, OPF_F32 = 2, OPF_UNSIGNED = 4, OPF_GENERIC = 8, OPF_HEXF = 16 };

struct Operand {
  uint8_t kind;
  uint8_t flags;
  int8_t comp;           /* -1, or 0..3 for .x .y .z .w */
  uint8_t n;             /* elements of VEC, PAIR, LIST, ADDR lists */
  uint32_t col;          /* source column of the operand */
  /* Not a union: code that tests `sym` on a list operand must find NULL
   * (a bracketed list [a, {b, c}] once lost its elements to `sym = NULL`). */
  Symbol *sym;           /* REG, SYM, ADDR base; NULL otherwise */
  Operand *elems;        /* VEC, PAIR, LIST, ADDR list; NULL otherwise */
  union {
    int64_t ival;        /* IMM value; SYM and ADDR offset */
    double fval;         /* FIMM */
  };
};

/* ---- instructions ---- */
typedef struct Insn {
  uint16_t op;           /* Opcode */
  uint8_t nmods, nopds;
  uint8_t types[3];      /* Type, from the matched type modifiers */
  uint8_t ntypes;
  uint8_t vec;           /* 1, or 2/4/8 from .vN */
  bool guard_neg;
  Symbol *guard;         /* @p / @!p, or NULL */
  const char **mods;     /* interned modifier spellings with their dot */
  Operand *opds;
  uint32_t line, col;    /* PTX location of the mnemonic */
  int32_t src_file;      /* from the nearest preceding .loc; -1 if none */
  int32_t src_line, src_col;
  int32_t src_inl;       /* that .loc's inline frame (Module.inl), -1: none */
} Insn;

/* ---- functions ---- */
typedef struct Module Module;

typedef struct Function {
  const char *name;
  const Module *unit;   /* the module (PTX input) that declares it, for its
                           path and .file table: a linked module's functions
                           keep their input's (link.c) */
  bool is_entry, is_extern, is_visible, is_weak, has_body, noreturn;
  Symbol **params;  int nparams;
  Symbol **rets;    int nrets;
  Symbol **regs;    int nregs;     /* every .reg of every block, by slot */
  Symbol **vars;    int nvars;     /* function-scope variables (.local, .shared, ...) */
  Insn *insns;      int ninsns;
  Symbol **labels;  int nlabels;
  /* performance directives (§11.4); 0 = absent */
  uint32_t maxntid[3], reqntid[3], reqnctapercluster[3];
  uint32_t minnctapersm, maxnctapersm, maxnreg, maxclusterrank;
  bool explicitcluster;
  const char **pragmas; int npragmas;
  uint32_t line, col;
} Function;

typedef struct SourceFile { int index; const char *path; } SourceFile;
/* A .loc with inlined_at (§11.5.3): its own location lies in function fn
 * (a .debug_str label, NULL if none given), inlined at the location at_*,
 * which lies in inline frame `up` (the latest earlier frame of the same
 * function whose own location it is), or -1: in the function itself. */
typedef struct InlineFrame {
  int32_t file, line, col;
  const char *fn;
  int32_t at_file, at_line, at_col;
  int32_t up;
} InlineFrame;
/* A label of .section .debug_str and the string it names. */
typedef struct DebugStr { const char *label, *s; } DebugStr;

struct Module {
  Arena arena;
  const char *path;          /* file name used in diagnostics */
  int ver_major, ver_minor;
  int sm;                    /* numeric part of the first sm_XX target */
  char sm_suffix;            /* its suffix (targets.def): 0, 'f' or 'a' */
  const char **targets; int ntargets;
  int address_size;          /* 32 or 64 */
  Symbol **globals;  int nglobals;   /* module-scope variables */
  Function **funcs;  int nfuncs;     /* in declaration order */
  SourceFile *files; int nfiles;     /* .file directives */
  InlineFrame *inl;  int ninl;       /* .loc ... inlined_at frames */
  DebugStr *dstr;    int ndstr;      /* .section .debug_str strings */
  Module **parts;    int nparts;     /* a linked module (src/front/link.c):
                                        the inputs it owns, whose functions
                                        and variables it lists */
};

/* ---- PTX ISA versions and .target architectures (targets.def) ---- */

typedef struct TargetInfo { const char *name; int sm; char suffix; int min_ptx; } TargetInfo;
/* The architecture named `name` ("sm_100f"), or NULL when the ISA has none. */
const TargetInfo *target_lookup(const char *name);
/* Whether the ISA defines version v (major*10+minor); the newest it defines. */
bool ptx_version_defined(int v);
int ptx_version_newest(void);
/* Whether instruction form op is valid for target (sm, suffix) at version
 * ver, by its PTX_ARCH_FEATURE lines (true for a row without any); when not,
 * the targets it needs, as "sm_90a (PTX ISA 8.0)" items, in buf. */
bool target_has_op(int op, int sm, char suffix, int ver, char *buf, size_t n);

Function *module_find_func(const Module *m, const char *name);
const char *insn_mnemonic(const Insn *in);
/* The instruction as written, mnemonic and modifiers ("bar.red.or.pred"),
 * into buf; "?" for NULL. */
const char *insn_text(const Insn *in, char *buf, size_t n);
bool insn_has_mod(const Insn *in, const char *mod);   /* mod with its dot */
/* Alignment of a variable or parameter in bytes: its .align, else its
 * element size (vector included); at least 1. */
uint32_t symbol_align(const Symbol *s);
/* The string of .debug_str label `label` (function_name), or NULL. */
const char *module_debug_str(const Module *m, const char *label);
const char *module_file_name(const Module *m, int index);
/* Whether a function name is one of the CUDA device runtime's (what
 * libcudadevrt defines for device code: cudaLaunchDevice,
 * cudaGetParameterBuffer, __cudaCDP2LaunchDeviceV2, ...), which ptxvm does
 * not provide: device-side launches are not supported. */
bool device_runtime_function(const char *name);

#endif
