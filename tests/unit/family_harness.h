/* family_harness.h: runs one family file's selector and handlers on a
 * hand-made Warp, without the lowering and interpreter (tests/unit/test_int.c,
 * test_logic.c, test_cmp.c).
 *
 * The test includes the family source directly (so its static handlers are
 * visible), with the Lower API renamed to the fixtures below: a fixture
 * operand's slot is its ival, in whichever register file the handler reads.
 * Every source value is written to both the 32-bit and the 64-bit slot of
 * its index, so one helper serves every width. */
#ifndef FAMILY_HARNESS_H
#define FAMILY_HARNESS_H

#define lower_src unit_lower_src
#define lower_dst unit_lower_dst
#define lower_mods unit_lower_mods
#define lower_addr unit_lower_addr
#define lower_aux unit_lower_aux
#define lower_space unit_lower_space

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/exec/exec.h"

uint32_t unit_lower_src(Lower *L, const Operand *o, Type t);
uint32_t unit_lower_dst(Lower *L, const Operand *o);
uint32_t unit_lower_mods(const Insn *in);
uint32_t unit_lower_src(Lower *L, const Operand *o, Type t) { (void)L; (void)t; return (uint32_t)o->ival; }
uint32_t unit_lower_dst(Lower *L, const Operand *o) { (void)L; return o->kind == OPD_SINK ? 0 : (uint32_t)o->ival; }
uint32_t unit_lower_mods(const Insn *in) { (void)in; return 0; }

enum { NSLOTS = 16 };
static uint32_t h_r32[NSLOTS * WARP_SIZE];
static uint64_t h_r64[NSLOTS * WARP_SIZE];
static uint32_t h_pred[NSLOTS];
static Warp h_warp = { .r32 = h_r32, .r64 = h_r64, .pred = h_pred, .valid = 0xffffffffu };
static int h_pass, h_fail;

static inline Operand OR_(int slot) { Operand o; memset(&o, 0, sizeof o); o.kind = OPD_REG; o.ival = slot; return o; }
static inline Operand ONEG(int slot) { Operand o = OR_(slot); o.flags = OPF_NEG; return o; }
static inline Operand OIMM(int64_t v) { Operand o; memset(&o, 0, sizeof o); o.kind = OPD_IMM; o.ival = v; return o; }
static inline Operand OSINK(void) { Operand o; memset(&o, 0, sizeof o); o.kind = OPD_SINK; return o; }

/* Builds the Insn for `op` with space-separated type names and modifiers
 * (with their dots) and runs the selector named by SELECT into *x. */
static bool h_select(bool (*select)(Lower *, const Insn *, XInsn *), Opcode op,
                     const char *types, const char *mods, Operand *opds, int nopds, XInsn *x) {
  static char buf[256];
  static const char *modv[8];
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = (uint16_t)op;
  in.vec = 1;
  snprintf(buf, sizeof buf, "%s", types);
  for (char *s = strtok(buf, " "); s; s = strtok(NULL, " "))
    in.types[in.ntypes++] = (uint8_t)type_lookup(s + (*s == '.'), (int)strlen(s + (*s == '.')));
  static char mbuf[256];
  snprintf(mbuf, sizeof mbuf, "%s", mods);
  for (char *s = strtok(mbuf, " "); s; s = strtok(NULL, " ")) modv[in.nmods++] = s;
  in.mods = modv;
  in.opds = opds;
  in.nopds = (uint8_t)nopds;
  memset(x, 0, sizeof *x);
  return select(NULL, &in, x);
}

static void h_set(int slot, uint64_t v) {
  for (int l = 0; l < WARP_SIZE; l++) {
    h_r32[slot * WARP_SIZE + l] = (uint32_t)v;
    h_r64[slot * WARP_SIZE + l] = v;
  }
}

static void h_check(const char *what, uint64_t got, uint64_t want) {
  if (got == want) { h_pass++; return; }
  h_fail++;
  printf("FAIL %s: got 0x%llx, want 0x%llx\n", what, (unsigned long long)got, (unsigned long long)want);
}

/* Runs `op types mods d, s1..sn` with d in slot 0 and si in slot i, and
 * returns lane 0 of the destination of width dw (32 or 64). */
static inline uint64_t h_run(bool (*select)(Lower *, const Insn *, XInsn *), Opcode op, const char *types,
                      const char *mods, int dw, int n, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  Operand o[6] = {OR_(0), OR_(1), OR_(2), OR_(3), OR_(4), OR_(5)};
  uint64_t v[4] = {a, b, c, d};
  XInsn x;
  for (int i = 0; i < n; i++) h_set(i + 1, v[i]);
  h_set(0, 0xdeadbeefdeadbeefull);
  if (!h_select(select, op, types, mods, o, n + 1, &x) || !x.fn) {
    printf("FAIL select %s %s %s\n", op_info[op].mnemonic, mods, types);
    h_fail++;
    return 0xbad;
  }
  x.fn(&h_warp, &x, 0xffffffffu);
  return dw == 64 ? h_r64[0] : h_r32[0];
}

static int h_report(void) {
  printf("%d passed, %d failed\n", h_pass, h_fail);
  return h_fail != 0;
}

#endif
