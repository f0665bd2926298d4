/* unsupported.c: selectors of the families that later issues implement —
 * TEX (textures and surfaces) and VIDEO. Each refuses every form, so
 * lowering reports "FILE:LINE:COL: <instruction> is not supported". When a
 * family gets its own file, delete its selector here. */
#include "exec.h"

#define REFUSE(name)                                               \
  bool name(Lower *L, const Insn *in, XInsn *x) {                  \
    (void)L; (void)in; (void)x;                                    \
    return false;                                                  \
  }

REFUSE(exec_select_TEX)
REFUSE(exec_select_VIDEO)
