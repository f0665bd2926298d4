/* ir.c: the tables derived from types.def, opcodes.def and targets.def, and
 * small IR queries. */
#include "ir.h"

#include <stdio.h>
#include <string.h>

static const struct { const char *name; int len, size; TypeKind kind; } types[] = {
  [TY_NONE] = {"", 0, 0, K_NONE},
#define X(e, name, size, kind) [e] = {name, (int)sizeof name - 1, size, kind},
#include "types.def"
#undef X
};

const char *type_name(Type t) { return t < TY_COUNT ? types[t].name : "?"; }
int type_size(Type t) { return t < TY_COUNT ? types[t].size : 0; }
TypeKind type_kind(Type t) { return t < TY_COUNT ? types[t].kind : K_NONE; }

Type type_lookup(const char *name, int len) {
  for (int t = 1; t < TY_COUNT; t++)
    if (types[t].len == len && types[t].name[0] == name[0] && !memcmp(types[t].name, name, (size_t)len))
      return (Type)t;
  return TY_NONE;
}

static const char *const spaces[] = {
#define X(e, s) s,
  STATE_SPACES(X)
#undef X
};
const char *space_name(Space s) { return s < SP_COUNT ? spaces[s] : "?"; }

const OpInfo op_info[OP_COUNT] = {
#define X(id, mn, fam, mods, opds, sm, ptx, flags, meaning) \
  {#id, mn, FAM_##fam, mods, opds, sm, ptx, flags, meaning},
#include "opcodes.def"
#undef X
};

static const TargetInfo targets[] = {
#define PTX_TARGET(name, sm, suffix, v) {name, sm, suffix, v},
#include "targets.def"
#undef PTX_TARGET
};

static const int versions[] = {
#define PTX_VERSION(v) v,
#include "targets.def"
#undef PTX_VERSION
};

const TargetInfo *target_lookup(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (!strcmp(targets[i].name, name)) return &targets[i];
  return NULL;
}

bool ptx_version_defined(int v) {
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
    if (versions[i] == v) return true;
  return false;
}

int ptx_version_newest(void) { return versions[sizeof versions / sizeof versions[0] - 1]; }

static const struct { Opcode op; const char *target; int ver; } arch_features[] = {
#define PTX_ARCH_FEATURE(op, target, v) {OP_##op, target, v},
#include "targets.def"
#undef PTX_ARCH_FEATURE
};

/* sm_XY's family: its major version; sm_101 is sm_110's old name. */
static int sm_family(int sm) { return sm == 101 ? 11 : sm / 10; }

/* Whether a target (sm, suffix) has what feature target t brings (targets.def). */
static bool target_covers(int sm, char suffix, const TargetInfo *t) {
  if (t->suffix == 'a') return sm == t->sm && suffix == 'a';
  return suffix && sm_family(sm) == sm_family(t->sm) && sm >= t->sm;
}

bool target_has_op(int op, int sm, char suffix, int ver, char *buf, size_t n) {
  bool listed = false;
  size_t k = 0;
  if (n) buf[0] = 0;
  for (size_t i = 0; i < sizeof arch_features / sizeof arch_features[0]; i++) {
    if ((int)arch_features[i].op != op) continue;
    listed = true;
    const TargetInfo *t = target_lookup(arch_features[i].target);
    if (t && ver >= arch_features[i].ver && target_covers(sm, suffix, t)) return true;
    if (k < n)
      k += (size_t)snprintf(buf + k, n - k, "%s%s (PTX ISA %d.%d)", k ? ", " : "", t ? t->name : "?",
                            arch_features[i].ver / 10, arch_features[i].ver % 10);
  }
  return !listed;
}

Function *module_find_func(const Module *m, const char *name) {
  for (int i = 0; i < m->nfuncs; i++)
    if (!strcmp(m->funcs[i]->name, name)) return m->funcs[i];
  return NULL;
}

/* Whether name is a function of the CUDA device runtime: what
 * libcudadevrt.a of CUDA 13.0 defines for device code (the Device Runtime
 * API of the CUDA Programming Guide, the __cudaCDP2* forms nvcc calls for
 * them, and their per-thread-stream _ptsz variants). */
bool device_runtime_function(const char *name) {
  static const char *const api[] = {   /* each after its "cuda" */
    "DeviceGetAttribute", "DeviceGetCacheConfig", "DeviceGetLimit", "DeviceGetSharedMemConfig",
    "DeviceSynchronize", "EventCreateWithFlags", "EventDestroy", "EventRecord", "Free",
    "FuncGetAttributes", "GetDevice", "GetDeviceCount", "GetErrorName", "GetErrorString",
    "GetLastError", "GetParameterBuffer", "GetParameterBufferV2", "LaunchDevice", "LaunchDeviceV2",
    "Malloc", "Memcpy2DAsync", "Memcpy3DAsync", "MemcpyAsync", "Memset2DAsync", "Memset3DAsync",
    "MemsetAsync", "OccupancyMaxActiveBlocksPerMultiprocessor",
    "OccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "PeekAtLastError", "RuntimeGetVersion",
    "StreamCreateWithFlags", "StreamDestroy", "StreamWaitEvent", "CGGetIntrinsicHandle", "CGGetRank",
    "CGGetSize", "CGSynchronize", "CGSynchronizeGrid"};
  const char *base;
  if (!strncmp(name, "__cudaCDP2", 10)) base = name + 10;
  else if (!strncmp(name, "cuda", 4)) base = name + 4;
  else return false;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, "_ptsz")) n -= 5;
  for (size_t i = 0; i < sizeof api / sizeof *api; i++)
    if (strlen(api[i]) == n && !strncmp(api[i], base, n)) return true;
  return false;
}

const char *insn_mnemonic(const Insn *in) { return op_info[in->op].mnemonic; }

uint32_t symbol_align(const Symbol *s) {
  uint32_t a = s->align ? s->align : (uint32_t)type_size(s->type) * (s->vec ? s->vec : 1);
  return a ? a : 1;
}

const char *insn_text(const Insn *in, char *buf, size_t n) {
  if (!in) {
    snprintf(buf, n, "?");
    return buf;
  }
  const char *mn = insn_mnemonic(in);
  size_t k = 0;
  while (mn[k] && mn[k] != '.') k++;
  snprintf(buf, n, "%.*s", (int)k, mn);
  /* the mnemonic's dotted parts are matched as modifiers, so the modifiers
   * as written hold them (vote.ballot.sync.b32); print each once */
  for (int i = 0; i < in->nmods; i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s", in->mods[i]);
  }
  if (!in->nmods) snprintf(buf, n, "%s", mn);
  return buf;
}

bool insn_has_mod(const Insn *in, const char *mod) {
  for (int i = 0; i < in->nmods; i++)
    if (!strcmp(in->mods[i], mod)) return true;
  return false;
}

const char *module_debug_str(const Module *m, const char *label) {
  for (int i = 0; label && i < m->ndstr; i++)
    if (!strcmp(m->dstr[i].label, label)) return m->dstr[i].s;
  return NULL;
}

const char *module_file_name(const Module *m, int index) {
  for (int i = 0; i < m->nfiles; i++)
    if (m->files[i].index == index) return m->files[i].path;
  return NULL;
}
