/* test_lazy.c: lowering kernel by kernel (program_layout, program_lower;
 * src/api/program.c) against lowering the module at once (program_build).
 *
 * The module below has two kernels: a calls .func g, b calls .func f,
 * which holds an instruction ptxvm cannot execute yet; b also holds one.
 * After program_layout nothing is lowered and the .global variable is
 * placed with its initial value; each program_lower lowers only what its
 * kernel reaches, and the functions get the same code as program_build
 * gives them (handler, opcode and branch target relative to the
 * function's first pc, instruction by instruction), the refusals the same
 * list in function order whichever kernel is lowered first, each kernel's
 * refusal the same one. Through the API, ptxvm_module_prepare finds what
 * stops a whole module, and a kernel launches while another is refused.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/front.h"
#include "../../src/lower/lower.h"
#include "ptxvm.h"

#include "check.h"

#define HEAD ".version 8.3\n.target sm_90\n.address_size 64\n"

static const char *src =
  HEAD ".visible .global .align 4 .u32 seed = 41;\n"
  ".func (.reg .b32 r) f(.reg .b32 x)\n{\n"
  "  vadd.u32.u32.u32 r, x, x;\n  ret;\n}\n"
  ".func (.reg .b32 r) g(.reg .b32 x)\n{\n"
  "  .reg .pred %p;\n  setp.gt.u32 %p, x, 3;\n  @%p bra BIG;\n  add.u32 r, x, 1;\n  ret;\n"
  "BIG:\n  mul.lo.u32 r, x, 7;\n  ret;\n}\n"
  ".visible .entry a(.param .u64 o)\n{\n"
  "  .reg .b32 %r<4>; .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [o];\n  ld.global.u32 %r1, [seed];\n"
  "  call (%r2), g, (%r1);\n  st.global.u32 [%rd1], %r2;\n  ret;\n}\n"
  ".visible .entry b(.param .u64 o)\n{\n"
  "  .reg .b32 %r<4>; .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [o];\n  mov.u32 %r1, 5;\n"
  "  vadd.u32.u32.u32 %r3, %r1, %r1;\n  call (%r2), f, (%r1);\n  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";

static int index_of(const Program *p, const char *name) {
  for (int i = 0; i < p->nfuncs; i++)
    if (!strcmp(p->funcs[i].f->name, name)) return i;
  return -1;
}

/* Whether function `name` has the same code in p and q. */
static bool same_code(const Program *p, const Program *q, const char *name) {
  const FuncInfo *a = &p->funcs[index_of(p, name)], *b = &q->funcs[index_of(q, name)];
  if (!a->lowered || !b->lowered || a->npc != b->npc) return false;
  for (uint32_t k = 0; k < a->npc; k++) {
    const XInsn *x = &p->code[a->pc + k], *y = &q->code[b->pc + k];
    if (x->fn != y->fn || x->op != y->op || x->src != y->src) return false;
    if ((x->target ? x->target - a->pc : 0) != (y->target ? y->target - b->pc : 0)) return false;
  }
  return true;
}

static void test_per_kernel(bool a_first) {
  char *err = NULL;
  Module *m = front_parse(src, strlen(src), "t.ptx", &err);
  CHECK(m != NULL);
  if (!m) { printf("  %s\n", err); free(err); return; }
  Device *d = dev_create((size_t)1 << 22);
  Program *whole = program_build(m, d, &err);
  Program *p = program_layout(m, d, &err);
  CHECK(whole && p);
  if (!whole || !p) goto out;
  const Function *ka = module_find_func(m, "a"), *kb = module_find_func(m, "b");
  /* variables at the layout, nothing lowered */
  const Symbol *seed = NULL;
  for (int i = 0; i < m->nglobals; i++)
    if (!strcmp(m->globals[i]->name, "seed")) seed = m->globals[i];
  uint64_t at = seed ? program_var_addr(p, seed) : 0;
  uint32_t *v = at ? dev_host(d, at, 4) : NULL;
  CHECK(v && *v == 41);
  CHECK(p->ncode == 0 && p->nrefusals == 0);
  for (int i = 0; i < p->nfuncs; i++) CHECK(!p->funcs[i].lowered);
  CHECK(!program_kernel_lowered(p, ka) && !program_kernel_lowered(p, kb));
  CHECK(program_static_shared(p, ka) == program_static_shared(whole, ka));
  const Function *first = a_first ? ka : kb, *second = a_first ? kb : ka;
  CHECK(program_lower(p, first, &err));
  CHECK(program_kernel_lowered(p, first) && !program_kernel_lowered(p, second));
  /* only what the kernel reaches, and the registers of those alone */
  CHECK(p->funcs[index_of(p, a_first ? "g" : "f")].lowered && !p->funcs[index_of(p, a_first ? "f" : "g")].lowered);
  CHECK(p->n32 < whole->n32);
  CHECK(same_code(p, whole, first->name) && same_code(p, whole, a_first ? "g" : "f"));
  CHECK((program_kernel_refusal(p, first) == NULL) == a_first);
  CHECK(program_lower(p, second, &err));
  CHECK(program_kernel_lowered(p, ka) && program_kernel_lowered(p, kb) && !p->lower);
  CHECK(same_code(p, whole, "a") && same_code(p, whole, "b") && same_code(p, whole, "f") &&
        same_code(p, whole, "g"));
  CHECK(p->n32 == whole->n32 && p->n64 == whole->n64 && p->npred == whole->npred);
  /* the same refusals, in function order (f's, then b's), the same for each kernel */
  CHECK(p->nrefusals == 2 && whole->nrefusals == 2);
  for (int r = 0; r < p->nrefusals && r < whole->nrefusals; r++)
    CHECK(!strcmp(p->refusals[r].msg, whole->refusals[r].msg) && p->refusals[r].func == whole->refusals[r].func);
  CHECK(p->nrefusals == 2 && strstr(p->refusals[0].msg, "t.ptx:7:3:") && strstr(p->refusals[1].msg, "t.ptx:35:3:"));
  CHECK(program_kernel_refusal(p, ka) == NULL);
  const Refusal *rb = program_kernel_refusal(p, kb), *wb = program_kernel_refusal(whole, kb);
  CHECK(rb && wb && !strcmp(rb->msg, wb->msg) && strstr(rb->msg, "t.ptx:35:3:"));   /* its own first */
  CHECK(program_lower(p, NULL, &err));   /* nothing left: a no-op */
out:
  free(err);
  program_free(p);
  program_free(whole);
  dev_destroy(d);
  module_free(m);
}

/* The API: a kernel launches before the module is lowered as a whole;
 * ptxvm_module_prepare reports what stops a module. */
static void test_api(void) {
  ptxvm_context *ctx = NULL;
  ptxvm_context_create(&ctx);
  ptxvm_module *mod = NULL;
  CHECK(ptxvm_module_load_data(ctx, src, strlen(src), "t.ptx", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_prepare(mod) == PTXVM_SUCCESS && ptxvm_module_prepare(mod) == PTXVM_SUCCESS);
  ptxvm_devptr seed = 0, out = 0;
  size_t n = 0;
  CHECK(ptxvm_module_get_global(mod, "seed", &seed, &n) == PTXVM_SUCCESS && n == 4);
  ptxvm_function *a = NULL, *b = NULL;
  ptxvm_module_get_function(mod, "a", &a);
  ptxvm_module_get_function(mod, "b", &b);
  int lowered = -1;
  CHECK(ptxvm_function_lowered(a, &lowered) == PTXVM_SUCCESS && lowered == 0);
  CHECK(ptxvm_mem_alloc(ctx, 4, &out) == PTXVM_SUCCESS);
  unsigned one[3] = {1, 1, 1}, got = 0, three = 3;
  void *params[] = {&out};
  CHECK(ptxvm_memcpy_htod(ctx, seed, &three, 4) == PTXVM_SUCCESS);
  CHECK(ptxvm_launch(a, one, one, NULL, 0, params) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, &got, out, 4) == PTXVM_SUCCESS && got == 4);   /* g(3) = 3 + 1 */
  CHECK(ptxvm_function_lowered(a, &lowered) == PTXVM_SUCCESS && lowered == 1);
  CHECK(ptxvm_function_lowered(b, &lowered) == PTXVM_SUCCESS && lowered == 0);
  CHECK(ptxvm_function_lowered(b, NULL) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_launch(b, one, one, NULL, 0, params) == PTXVM_ERROR_NOT_SUPPORTED);
  CHECK(strstr(ptxvm_last_error(ctx), "t.ptx:35:3: vadd.u32.u32.u32") != NULL);
  CHECK(ptxvm_module_unsupported_count(mod) == 2);
  CHECK(ptxvm_function_lowered(b, &lowered) == PTXVM_SUCCESS && lowered == 1);
  CHECK(ptxvm_launch(a, one, one, NULL, 0, params) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_prepare(NULL) == PTXVM_ERROR_INVALID_VALUE);
  ptxvm_module_unload(mod);
  CHECK(ptxvm_module_prepare(mod) == PTXVM_ERROR_INVALID_HANDLE);
  /* a frame too large for local memory stops the module at its preparation */
  const char *big = HEAD ".func f(.param .align 4 .b8 a[3000000000])\n{\n  ret;\n}\n"
                    ".visible .entry k()\n{\n  ret;\n}\n";
  CHECK(ptxvm_module_load_data(ctx, big, strlen(big), "big.ptx", &mod) == PTXVM_SUCCESS);
  CHECK(ptxvm_module_prepare(mod) == PTXVM_ERROR_NOT_SUPPORTED);
  CHECK(strstr(ptxvm_last_error(ctx), "big.ptx: the frame of 'f'") == ptxvm_last_error(ctx));
  ptxvm_context_destroy(ctx);
}

int main(void) {
  test_per_kernel(true);
  test_per_kernel(false);
  test_api();
  return unit_report();
}
