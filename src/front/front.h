/* front.h: the front end's internal header, one section per file
 * (chibicc style): lexer, diagnostics, parser, opcode patterns, validator.
 *
 * The front end turns PTX text into a Module (ir.h). It stops at the first
 * error: diag_error formats "FILE:LINE:COL: error: message", the source line
 * and a caret into the Parser's message buffer, then longjmps to the one
 * setjmp in front_parse, which frees the module's arena. */
#ifndef PTXVM_FRONT_H
#define PTXVM_FRONT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../ir/ir.h"

/* ---- lex.c ---- */
typedef enum {
  TK_EOF,
  TK_IDENT,      /* add, %r1, $L__BB0_1, _Z3fooi */
  TK_DOT,        /* .reg, .u32, .shared::cta, .x, .2d: text includes the dot */
  TK_INT,        /* integer literal; ival holds the bits */
  TK_FLOAT,      /* 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, or decimal with . or e */
  TK_STRING,     /* "..." (text includes the quotes) */
  TK_PUNCT,      /* one of { } [ ] ( ) , ; : + - ! @ | < > = */
} TokKind;

typedef struct Token {
  TokKind kind;
  const char *s;         /* points into the source text */
  uint32_t len;
  uint32_t line, col;    /* 1-based */
  bool is_f32;           /* 0f form */
  bool is_hex_float;     /* 0f or 0d form (the bits are given) */
  bool is_unsigned;      /* U suffix */
  bool space_before;     /* white space or a comment precedes the token */
  uint64_t ival;
  double fval;
} Token;

typedef struct Lexer {
  const char *src, *end, *p;
  uint32_t line;
  const char *line_start;
  struct Parser *P;      /* for diagnostics */
} Lexer;

void lex_init(Lexer *L, struct Parser *P, const char *src, size_t len);
Token lex_next(Lexer *L);

/* ---- diag (parse.c) ---- */
typedef struct Parser Parser;
_Noreturn void diag_error(Parser *P, uint32_t line, uint32_t col, uint32_t width,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
_Noreturn void diag_error_tok(Parser *P, const Token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- symbol tables (parse.c) ---- */
typedef struct Scope Scope;

/* ---- opcodes.c: compiled modifier and operand patterns ---- */
enum { PAT_MAX_ALTS = 48, PAT_MAX_ITEMS = 40, PAT_MAX_OPDS = 12 };

typedef struct PatItem {
  bool optional;
  uint8_t group;         /* 0: anywhere; else the items of one group keep their
                            order (types, state spaces, shared spellings) */
  uint8_t nalts;
  const char *alts[PAT_MAX_ALTS];   /* spellings with their dot */
} PatItem;

typedef struct OpdSpec {
  char kind;             /* d D a r i s p q v m l f c t e k b * */
  bool optional;
  uint8_t type_index;
  enum { OT_INSN, OT_FIXED, OT_2X, OT_WIDE, OT_ANY } tmode;
  Type fixed;
  bool ranged;           /* a constant must lie in [lo, hi] */
  int64_t lo, hi;
  uint32_t multiple;     /* a constant must be a multiple of this (0 = any) */
  bool pair;             /* X|Y: second half in pair_spec */
  bool pair_optional;
  char pair_kind;
  uint8_t pair_type_index;
} OpdSpec;

typedef struct OpPattern {
  const char *base;                  /* first word of the mnemonic */
  int nfixed;                        /* items[0..nfixed): the mnemonic's dotted parts */
  int nitems;
  PatItem items[PAT_MAX_ITEMS];
  int nopds;
  OpdSpec opds[PAT_MAX_OPDS];
} OpPattern;

const OpPattern *op_patterns(void);
const char *op_compile_error(void);
/* The interned spelling of a modifier or mnemonic word (with its dot) that
 * some row of the table uses, or NULL: rows compare spellings by pointer. */
const char *op_spelling(const char *s, size_t n);  /* ID of the first malformed row, or NULL */  /* compiled once (thread-safe) */
/* First row whose base mnemonic is `base` (len bytes), or -1; rows with the
 * same base are consecutive in op_rows_by_base order: iterate with next. */
int op_first(const char *base, size_t len);
int op_next(int row);

/* ---- validate.c ---- */
typedef struct ModMatch {
  int row;               /* matched row, or -1 */
  int fail_row, fail_at; /* best partial match: row and modifier index */
} ModMatch;
/* Match the modifiers of an instruction (spellings with dots) against every
 * row of `base`; fills in->op, in->types, in->vec, in->mods. */
void validate_modifiers(Parser *P, Insn *in, const Token *mn,
                        const Token *mods, int nmods);
void validate_operands(Parser *P, Insn *in);
/* mmaform.c: a matrix instruction's shape/type/layout combination that the
 * ISA does not define is a located error naming what it gives. */
void validate_matrix_form(Parser *P, const Insn *in, const Token *mn);
/* ...and an mma whose fragments are not the ISA's register counts. */
void validate_matrix_operands(Parser *P, const Insn *in);
void validate_target(Parser *P, const Insn *in);
/* Lays out f's parameters and return values (Symbol.offset) and checks a
 * kernel's parameter space against ptxas's limit. */
void validate_params(Parser *P, const Function *f);

/* ---- parse.c ---- */
typedef VEC(Symbol *) SymVec;
typedef struct LabelUse {    /* a label operand, resolved against its block */
  Symbol *sym;               /* the first symbol of that name */
  Symbol **ref;              /* where the operand keeps it (rebound at the end) */
  int block;
  uint32_t line, col;
} LabelUse;

typedef struct FnBuild {     /* what a function accumulates while parsed */
  SymVec regs, vars, labels, params, rets;
  /* { } blocks: block_parent[b] encloses b (-1 for the body); a label's
   * Symbol.slot holds the block that defines it, while parsing */
  VEC(int) block_parent;
  int block;
  VEC(LabelUse) label_uses;
  VEC(Insn) insns;
  VEC(const char *) pragmas;
} FnBuild;

struct Parser {
  Lexer lex;
  Token tok;             /* current token */
  Token ahead;           /* one token of lookahead (valid if has_ahead) */
  bool has_ahead;
  Module *m;
  Function *fn;          /* function being parsed, or NULL */
  Scope *scope;          /* innermost scope */
  Scope *labels;         /* labels of the current function */
  FnBuild *fb;           /* the function being built, or NULL */
  SymVec globals;
  VEC(Function *) funcs;
  VEC(SourceFile) files;
  int cur_file, cur_line, cur_col;   /* from the last .loc */
  int cur_inl;           /* its inline frame (Module.inl), -1: none */
  int fn_inl;            /* the current function's first inline frame */
  VEC(InlineFrame) inl;
  VEC(DebugStr) dstr;
  const char ***modsets; /* validate.c: each distinct modifier list once (NULL-ended) */
  uint32_t nmodsets, capmodsets;
  jmp_buf jb;
  char *msg;             /* diagnostic text (malloc'd), set on error */
  const char *src;       /* whole text, to quote source lines */
  size_t srclen;
  bool whole_sregs;      /* the instruction being parsed may name a special
                            register vector whole (mov.v4.u32 v, %tid) */
};

/* Parse and validate `len` bytes of PTX named `path`. Returns the module,
 * or NULL with *err set to a malloc'd diagnostic (caller frees). */
Module *front_parse(const char *src, size_t len, const char *path, char **err);
/* Frees m and, for a linked module, its inputs. */
void module_free(Module *m);

/* ---- link.c ---- */
/* Links n modules from front_parse (PTX ISA 9.0 §11.6) into one named
 * `path`, which owns them (Module.parts) and lists their functions and
 * variables, every reference bound to its definition. The inputs are the
 * result's, also on failure, when they are freed and NULL is returned with
 * *err a malloc'd "FILE:LINE:COL: error: message" (NULL: out of memory). */
Module *front_link(Module **parts, int n, const char *path, char **err);

#endif
