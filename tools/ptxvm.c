/* ptxvm.c: the command line (shared CLI.md is the contract).
 *
 *   ptxvm check FILE.ptx     parse and validate; exit 0, or 2 with diagnostics
 *   ptxvm info FILE.ptx      list functions, parameters and directives
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxvm.h"

enum { EXIT_OK = 0, EXIT_FAULT = 1, EXIT_INPUT = 2 };

static void usage(FILE *f) {
  fputs("usage: ptxvm check FILE.ptx\n"
        "       ptxvm info FILE.ptx\n"
        "FILE may be - for standard input.\n", f);
}

/* Loads FILE into a fresh context; prints the diagnostic and returns NULL on
 * failure. */
static ptxvm_module *load(ptxvm_context **ctx, const char *path) {
  if (ptxvm_context_create(ctx) != PTXVM_SUCCESS) {
    fputs("ptxvm: out of memory\n", stderr);
    return NULL;
  }
  ptxvm_module *mod;
  ptxvm_status st = ptxvm_module_load_file(*ctx, path, &mod);
  if (st != PTXVM_SUCCESS) {
    const char *msg = ptxvm_last_error(*ctx);
    fprintf(stderr, "%s%s", *msg ? msg : ptxvm_status_str(st),
            *msg && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
    return NULL;
  }
  return mod;
}

static int cmd_check(const char *path) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = load(&ctx, path);
  ptxvm_context_destroy(ctx);
  return mod ? EXIT_OK : EXIT_INPUT;
}

static void print_dims(const char *name, const unsigned d[3]) {
  if (d[0]) printf("  %s %u, %u, %u\n", name, d[0], d[1], d[2]);
}

static void print_param(const char *what, int i, const ptxvm_param_info *p) {
  printf("  %s %d: %s .%s .%s size %u align %u offset %u", what, i, p->name, p->space,
         p->type, p->size, p->align, p->offset);
  if (p->array_len) printf(" [%u]", p->array_len);
  if (p->ptr_space) printf(" .ptr .%s", p->ptr_space);
  if (p->ptr_align) printf(" .align %u", p->ptr_align);
  putchar('\n');
}

static int cmd_info(const char *path) {
  ptxvm_context *ctx = NULL;
  ptxvm_module *mod = load(&ctx, path);
  if (!mod) {
    ptxvm_context_destroy(ctx);
    return EXIT_INPUT;
  }
  for (int i = 0; i < ptxvm_module_function_count(mod); i++) {
    ptxvm_function *fn = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    ptxvm_function_get_info(fn, &fi);
    printf("%s %s%s: %d param%s, %u bytes\n", fi.is_entry ? ".entry" : ".func", fi.name,
           fi.has_body ? "" : " (declaration)", fi.nparams, fi.nparams == 1 ? "" : "s",
           fi.param_bytes);
    ptxvm_param_info pi;
    for (int k = 0; k < fi.nrets; k++)
      if (ptxvm_function_get_param(fn, 1, k, &pi) == PTXVM_SUCCESS) print_param("return", k, &pi);
    for (int k = 0; k < fi.nparams; k++)
      if (ptxvm_function_get_param(fn, 0, k, &pi) == PTXVM_SUCCESS) print_param("param", k, &pi);
    print_dims(".maxntid", fi.maxntid);
    print_dims(".reqntid", fi.reqntid);
    print_dims(".reqnctapercluster", fi.reqnctapercluster);
    if (fi.minnctapersm) printf("  .minnctapersm %u\n", fi.minnctapersm);
    if (fi.maxnctapersm) printf("  .maxnctapersm %u\n", fi.maxnctapersm);
    if (fi.maxnreg) printf("  .maxnreg %u\n", fi.maxnreg);
    if (fi.maxclusterrank) printf("  .maxclusterrank %u\n", fi.maxclusterrank);
    if (fi.explicitcluster) puts("  .explicitcluster");
    if (fi.noreturn) puts("  .noreturn");
  }
  ptxvm_context_destroy(ctx);
  return EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_INPUT;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    usage(stdout);
    return EXIT_OK;
  }
  if ((!strcmp(cmd, "check") || !strcmp(cmd, "info")) && argc == 3)
    return !strcmp(cmd, "check") ? cmd_check(argv[2]) : cmd_info(argv[2]);
  fprintf(stderr, "ptxvm: unknown command or wrong arguments: %s\n", cmd);
  usage(stderr);
  return EXIT_INPUT;
}
