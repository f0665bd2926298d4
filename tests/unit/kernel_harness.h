/* kernel_harness.h: runs a small PTX kernel through the front end, lowering
 * and the interpreter (cta_run) for the unit tests, without the API. */
#ifndef PTXVM_UNIT_KERNEL_HARNESS_H
#define PTXVM_UNIT_KERNEL_HARNESS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/front.h"
#include "../../src/lower/lower.h"

#define HEAD ".version 7.8\n.target sm_90\n.address_size 64\n"

/* Parses, lowers and runs kernel `k` of src on one CTA of `threads`
 * threads with one u64 parameter pointing at a zeroed buffer of n u32, with
 * the watchdog at max_steps (0: the default). Copies the buffer to out;
 * *ok says whether the CTA completed. Returns the launch error (malloc'd),
 * a front-end or lowering diagnostic, or NULL. */
static char *run_kernel(const char *src, uint32_t threads, uint32_t *out, int n,
                        uint64_t max_steps, bool *ok) {
  char *err = NULL;
  *ok = false;
  Module *m = front_parse(src, strlen(src), "t.ptx", &err);
  if (!m) return err;
  Device *d = dev_create((size_t)1 << 26);
  Program *p = program_build(m, d, &err);
  if (p && p->nrefusals) err = strdup(p->refusals[0].msg);   /* an instruction refused */
  if (!p || err) { program_free(p); dev_destroy(d); module_free(m); return err; }
  uint64_t buf = dev_alloc(d, (uint64_t)n * 4, 256, 0);
  Launch L;
  memset(&L, 0, sizeof L);
  L.prog = p;
  L.kernel = module_find_func(m, "k");
  L.dev = d;
  L.grid[0] = L.grid[1] = L.grid[2] = 1;
  L.block[0] = threads; L.block[1] = L.block[2] = 1;
  L.cluster[0] = L.cluster[1] = L.cluster[2] = 1;
  L.params = (const uint8_t *)&buf;
  L.param_size = 8;
  L.max_steps = max_steps;
  uint32_t ctaid[3] = {0, 0, 0};
  *ok = cta_run(&L, ctaid);
  memcpy(out, dev_host(d, buf, (uint64_t)n * 4), (size_t)n * 4);
  program_free(p);
  dev_destroy(d);
  module_free(m);
  return L.error;
}

#endif
