/* ptxvm.c: the command line (shared CLI.md is the contract).
 *
 *   ptxvm run [OPTIONS] FILE.ptx [KERNEL]   launch one kernel, dump buffers
 *   ptxvm check FILE.ptx                    parse and validate; exit 0, or 2 with diagnostics;
 *                                           warns of what ptxvm cannot execute yet
 *   ptxvm check --dump-lowered FILE.ptx [KERNEL]
 *                                           the lowered code, one decoded instruction a
 *                                           line (tools/lowered.c)
 *   ptxvm info FILE.ptx                     list functions, parameters and directives
 *   ptxvm exec [OPTIONS] [--] PROGRAM ...   run a program with ptxvm as its CUDA driver (exec.c)
 *   ptxvm ptx FILE                          the PTX of an executable or fatbin
 *
 * FILE may also be an image holding PTX (a CUDA executable, object or
 * fatbin; tools/image.c). The help each command prints is its section of
 * docs/cli.md, the reference the man page is made from too (cli_help.h,
 * scripts/gen_cli.py); a misspelled command or option names the nearest
 * (suggest.c).
 *
 * `run` turns each -a SPEC into a parameter value: a scalar's bits, or a
 * device buffer (allocated, initialised, its address passed), launches, and
 * prints the -o buffers. A TYPE[N]:INIT spec for an array parameter
 * (`.param .align A .b8 p[N]`, a by-value struct) supplies the parameter's
 * bytes instead; N elements of TYPE must fill it exactly. Exit status: 0 ran,
 * 1 the kernel faulted, 2 the input was unusable (README "Command line"
 * defines rand=SEED and the array parameters). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_help.h"
#include "demangle.h"
#include "exec.h"
#include "image.h"
#include "lowered.h"
#include "runargs.h"
#include "schedules.h"
#include "suggest.h"

/* The help text of command cmd ("" for ptxvm's own): docs/cli.md's
 * section, made into tools/cli_help.h by scripts/gen_cli.py. */
static const char *help_of(const char *cmd) {
  for (size_t i = 0; i < sizeof cli_help / sizeof cli_help[0]; i++)
    if (!strcmp(cli_help[i].command, cmd)) return cli_help[i].text;
  return cli_help[0].text;
}

static void usage(FILE *f) { fputs(help_of(""), f); }
static void run_usage(FILE *f) { fputs(help_of("run"), f); }

/* --stats: the block on stderr (ptxvm_launch_stats); nothing when no
 * launch ran. bench/run.py reads the "thread-instructions:" line. */
static void print_stats(ptxvm_context *ctx) {
  ptxvm_stats s;
  if (ptxvm_launch_stats(ctx, &s) != PTXVM_SUCCESS || s.wall_s <= 0) return;
  fprintf(stderr, "ptxvm stats:\n");
  fprintf(stderr, "  warp-instructions: %" PRIu64 "\n", s.warp_insns);
  fprintf(stderr, "  thread-instructions: %" PRIu64 "\n", s.thread_insns);
  for (int i = 0; i < PTXVM_STATS_FAMILIES; i++)
    if (s.family_warp_insns[i])
      fprintf(stderr, "  family %s: warp %" PRIu64 ", thread %" PRIu64 "\n", ptxvm_stats_family_name(i),
              s.family_warp_insns[i], s.family_thread_insns[i]);
  fprintf(stderr, "  barriers completed: cta %" PRIu64 ", warp-sync %" PRIu64 ", cluster %" PRIu64 "\n",
          s.bar_cta, s.warp_sync, s.bar_cluster);
  fprintf(stderr, "  mbarrier phases completed: %" PRIu64 "\n", s.mbar_phases);
  fprintf(stderr, "  lane groups: splits %" PRIu64 ", merges %" PRIu64 "\n", s.splits, s.merges);
  fprintf(stderr, "  wall time: %.6f s\n", s.wall_s);
  fprintf(stderr, "  thread-instructions per second: %.4g\n", s.thread_insns_per_s);
  fprintf(stderr, "  peak memory: %" PRIu64 " KiB\n", s.peak_rss_kb);
}

/* The device printf output the launch dropped at the --printf-buffer
 * limit, on stderr (also with -q: the output is incomplete). */
static void print_printf_lost(ptxvm_context *ctx, uint64_t limit) {
  ptxvm_stats s;
  if (ptxvm_launch_stats(ctx, &s) != PTXVM_SUCCESS || !s.printf_lost_calls) return;
  fprintf(stderr, "ptxvm: printf output lost: %" PRIu64 " call%s (%" PRIu64 " bytes) beyond the %" PRIu64
          "-byte printf buffer of cluster (%u,%u,%u)", s.printf_lost_calls, s.printf_lost_calls == 1 ? "" : "s",
          s.printf_lost_bytes, limit ? limit : (uint64_t)PTXVM_PRINTF_BUFFER_DEFAULT, s.printf_lost_first[0],
          s.printf_lost_first[1], s.printf_lost_first[2]);
  if (s.printf_lost_clusters > 1)
    fprintf(stderr, " and %" PRIu64 " more cluster%s", s.printf_lost_clusters - 1,
            s.printf_lost_clusters == 2 ? "" : "s");
  fputs("; --printf-buffer SIZE keeps more\n", stderr);
}

/* The first error writing standard output (an errno), 0 while none. */
static int stdout_errno;

static void stdout_failed(void) {
  if (!stdout_errno) stdout_errno = errno ? errno : EIO;
}

/* Device printf output goes to standard output as the kernel produces it. */
static void print_device(const char *text, size_t len, void *user) {
  (void)user;
  if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) stdout_failed();
}

/* Loads FILE's modules into a fresh context; prints the diagnostic and
 * returns EXIT_INPUT on failure. */
static int load(ptxvm_context **ctx, const char *path, Loaded *l) {
  *l = (Loaded){NULL, NULL, 0};
  if (ptxvm_context_create(ctx) != PTXVM_SUCCESS) {
    fputs("ptxvm: out of memory\n", stderr);
    return EXIT_INPUT;
  }
  ptxvm_set_printf_callback(*ctx, print_device, NULL);
  return image_load(*ctx, path, l);
}

/* Valid PTX that ptxvm cannot execute yet is a warning, not an error: one
 * line per instruction, at its FILE:LINE:COL, saying which kernels it stops
 * (README "Command line"). */
static void print_unsupported(ptxvm_module *mod) {
  int n = ptxvm_module_unsupported_count(mod);
  for (int i = 0; i < n; i++) {
    ptxvm_unsupported_info u;
    if (ptxvm_module_unsupported(mod, i, &u) != PTXVM_SUCCESS) continue;
    int loc = (int)(u.what - u.message);
    if (!u.function)
      fprintf(stderr, "%.*swarning: ptxvm cannot run this module: %s\n", loc, u.message, u.what);
    else if (u.in_entry)
      fprintf(stderr, "%.*swarning: %s (ptxvm cannot execute it yet: kernel '%s' cannot be launched)\n",
              loc, u.message, u.what, u.function);
    else
      fprintf(stderr, "%.*swarning: %s (ptxvm cannot execute it yet: the kernels that can call "
              "'%s' cannot be launched)\n", loc, u.message, u.what, u.function);
  }
}

static int cmd_check(const char *path) {
  ptxvm_context *ctx = NULL;
  Loaded l;
  int rc = load(&ctx, path, &l);
  for (int i = 0; rc == EXIT_OK && i < l.n; i++) print_unsupported(l.mods[i]);
  image_unload(&l);
  ptxvm_context_destroy(ctx);
  return rc;
}

static void print_dims(const char *name, const unsigned d[3]) {
  if (d[0]) printf("  %s %u, %u, %u\n", name, d[0], d[1], d[2]);
}

static void print_param(const char *what, int i, const ptxvm_param_info *p) {
  printf("  %s %d: %s .%s .%s size %" PRIu64 " align %u offset %" PRIu64, what, i, p->name,
         p->space, p->type, p->size, p->align, p->offset);
  if (p->array_len) printf(" [%" PRIu64 "]", p->array_len);
  if (p->ptr_space) printf(" .ptr .%s", p->ptr_space);
  if (p->ptr_align) printf(" .align %u", p->ptr_align);
  putchar('\n');
}

static void info_module(ptxvm_module *mod) {
  for (int i = 0; i < ptxvm_module_function_count(mod); i++) {
    ptxvm_function *fn = ptxvm_module_function_at(mod, i);
    ptxvm_function_info fi;
    ptxvm_function_get_info(fn, &fi);
    char name[256], sig[512];
    bool readable = demangle(fi.name, name, sizeof name, sig, sizeof sig);
    /* the demangled signature last, so the line's start stays what scripts match */
    printf("%s %s%s: %d param%s, %" PRIu64 " bytes%s%s\n", fi.is_entry ? ".entry" : ".func", fi.name,
           fi.has_body ? "" : " (declaration)", fi.nparams, fi.nparams == 1 ? "" : "s", fi.param_bytes,
           readable ? "  // " : "", readable ? sig : "");
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
}

/* With several modules (an image's), each after a "module NAME:" line. */
static int cmd_info(const char *path) {
  ptxvm_context *ctx = NULL;
  Loaded l;
  int rc = load(&ctx, path, &l);
  for (int i = 0; rc == EXIT_OK && i < l.n; i++) {
    if (l.n > 1) printf("module %s:\n", l.names[i]);
    info_module(l.mods[i]);
  }
  image_unload(&l);
  ptxvm_context_destroy(ctx);
  return rc;
}

/* ---- ptxvm run (the options and argument specs: runargs.c) ---- */

static int vm_htod(void *u, uint64_t addr, const void *src, size_t bytes) {
  return ptxvm_memcpy_htod(u, addr, src, bytes) != PTXVM_SUCCESS;
}
static int vm_dtoh(void *u, void *dst, uint64_t addr, size_t bytes) {
  return ptxvm_memcpy_dtoh(u, dst, addr, bytes) != PTXVM_SUCCESS;
}

static const char *vm_alloc(void *u, size_t bytes, uint64_t *addr) {
  return ptxvm_mem_alloc(u, bytes, addr) != PTXVM_SUCCESS ? ptxvm_last_error(u) : NULL;
}
static void vm_free(void *u, uint64_t addr) { ptxvm_mem_free(u, addr); }
static int vm_undef(void *u, uint64_t addr) { return ptxvm_mem_set_uninitialized(u, addr) != PTXVM_SUCCESS; }

static const char *vm_tensor_map(void *u, void *out, const TmapSpec *s, uint64_t addr) {
  ptxvm_status st = s->im2col
    ? ptxvm_tensor_map_encode_im2col(u, out, s->dtype, s->rank, addr, s->dim, s->stride, s->lower, s->upper,
                                     s->cpp, s->ppc, s->estride, s->interleave, s->swizzle, 0, s->oobfill)
    : ptxvm_tensor_map_encode(u, out, s->dtype, s->rank, addr, s->dim, s->stride, s->box,
                              s->estride, s->interleave, s->swizzle, 0, s->oobfill);
  return st == PTXVM_SUCCESS ? NULL : ptxvm_last_error(u);
}

/* The context's memory as runargs.c sees it (allocations read zero). */
static RunDevice vm_device(ptxvm_context *ctx) {
  return (RunDevice){vm_htod, vm_dtoh, vm_alloc, vm_free, true, vm_undef, vm_tensor_map, ctx};
}

static int exit_for(ptxvm_status st) {
  switch (st) {
  case PTXVM_SUCCESS: return EXIT_OK;
  case PTXVM_ERROR_LAUNCH_FAILED: case PTXVM_ERROR_DEADLOCK: case PTXVM_ERROR_HAZARD:
    return EXIT_FAULT;
  default: return EXIT_INPUT;   /* configuration, unsupported PTX, memory */
  }
}

/* SIGINT during a launch cancels it (ptxvm_cancel); SA_RESETHAND: a
 * second SIGINT has the default effect. */
static ptxvm_context *volatile sigint_ctx;

static void on_sigint(int sig) {
  (void)sig;
  if (sigint_ctx) ptxvm_cancel(sigint_ctx);
}

/* Notes on the launch (ptxvm_set_note_callback), unless -q. */
static void on_note(const char *text, void *user) {
  (void)user;
  fprintf(stderr, "ptxvm: %s\n", text);
}

/* One launch of `run`: the kernel, its shape and options. */
typedef struct Launch {
  ptxvm_context *ctx;
  ptxvm_function *fn;
  const RunOpts *o;
  unsigned block[3], cluster[3];
} Launch;

/* The report text of a LaunchFn: text copied, or printed at once when
 * memory for the copy runs out. */
static char *report_of(const char *text) {
  char *r = strdup(text);
  if (!r) report_print(text);
  return r;
}

/* A LaunchFn (schedules.h): one launch under schedule seed, its findings
 * or failure in *report; SIGINT cancels it. */
static int launch_once(void *u, uint64_t seed, void **values, bool *findings, char **report) {
  Launch *l = u;
  const RunOpts *o = l->o;
  struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = (int)SA_RESETHAND}, old;
  sigemptyset(&sa.sa_mask);
  sigint_ctx = l->ctx;
  sigaction(SIGINT, &sa, &old);
  ptxvm_set_schedule(l->ctx, seed);
  ptxvm_launch_options lo = {.cluster = {l->cluster[0], l->cluster[1], l->cluster[2]},
                             .dyn_shared_bytes = o->shared, .cooperative = o->cooperative};
  ptxvm_status st = o->cooperative || o->has_cluster   /* --cluster 1,1,1 is a cluster launch too */
                        ? ptxvm_launch_ex(l->fn, o->grid, l->block, &lo, values)
                        : ptxvm_launch(l->fn, o->grid, l->block, l->cluster, o->shared, values);
  sigaction(SIGINT, &old, NULL);
  sigint_ctx = NULL;
  /* a hazard under --check: the kernel completed, so its buffers are dumped */
  *findings = st == PTXVM_ERROR_HAZARD;
  *report = NULL;
  if (st == PTXVM_ERROR_CANCELLED) {
    *report = report_of("ptxvm: cancelled");
    return EXIT_FAULT;
  }
  if (st != PTXVM_SUCCESS) {
    const char *msg = ptxvm_last_error(l->ctx);
    *report = report_of(*msg ? msg : ptxvm_status_str(st));
  }
  return *findings ? EXIT_OK : exit_for(st);
}

static int launch_and_dump(ptxvm_context *ctx, ptxvm_module *mod, const RunOpts *o, Arg *args) {
  Launch l = {ctx, run_pick_kernel(mod, o->kernel), o, {0}, {0}};
  if (!l.fn) return EXIT_INPUT;
  run_launch_shape(l.fn, o, l.block, l.cluster);
  void **values = calloc((size_t)o->nspecs + 1, sizeof *values);
  if (!values) return run_bad("out of memory");
  int rc = run_check_args(l.fn, o, args);
  RunDevice dev = vm_device(ctx);
  bool findings = false;
  if (rc == EXIT_OK && o->schedules) {
    bool completed;
    rc = schedules_run(o, args, &dev, values, launch_once, &l, &completed);
    findings = completed && rc == EXIT_FAULT;   /* differences or findings: dumped */
  } else {
    if (rc == EXIT_OK) rc = run_bind(o, args, &dev, values);
    char *report = NULL;
    if (rc == EXIT_OK) rc = launch_once(&l, o->schedule, values, &findings, &report);
    if (report) report_print(report);
    free(report);
    if (findings) rc = EXIT_FAULT;
  }
  for (int i = 0; (rc == EXIT_OK || findings) && i < o->ndumps; i++) {
    int r = run_dump(&args[o->dumps[i].arg], &o->dumps[i], &dev);
    if (r != EXIT_OK) rc = r;
  }
  print_printf_lost(ctx, o->printf_buffer);
  if (o->stats) print_stats(ctx);
  free(values);
  return rc;
}

/* ptxvm run [OPTIONS] FILE.ptx [KERNEL]; argv[0] is "run". */
static int cmd_run(int argc, char **argv) {
  RunOpts o;
  Arg *args;
  int rc = run_begin(argc, argv, &o, &args, run_usage);
  ptxvm_context *ctx = NULL;
  Loaded l = {NULL, NULL, 0};
  if (rc == EXIT_OK) {
    ptxvm_module *mod = load(&ctx, o.file, &l) == EXIT_OK ? image_pick(&l, o.kernel) : NULL;
    if (mod) {
      ptxvm_set_max_steps(ctx, o.max_steps);
      ptxvm_set_async_delay(ctx, o.async_delay);
      ptxvm_set_check(ctx, o.check);
      if (o.trace) ptxvm_set_trace(ctx, o.trace, o.trace_max);
      ptxvm_set_jobs(ctx, o.jobs);
      ptxvm_set_printf_buffer(ctx, (size_t)o.printf_buffer);
      if (o.device_memory) ptxvm_set_device_memory(ctx, (size_t)o.device_memory);
      if (!o.quiet) ptxvm_set_note_callback(ctx, on_note, NULL);
    }
    rc = mod ? launch_and_dump(ctx, mod, &o, args) : EXIT_INPUT;
    unsigned long long dropped = 0;
    if (mod && o.trace && ptxvm_trace_dropped(ctx, &dropped) == PTXVM_SUCCESS && dropped)
      fprintf(stderr, "ptxvm: the trace %s is truncated: %llu events dropped at its bound\n", o.trace, dropped);
  }
  image_unload(&l);
  ptxvm_context_destroy(ctx);
  run_end(&o, args);
  return rc;
}

static const char *const commands[] = {"run", "check", "info", "exec", "ptx"};

static bool is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

/* A usage error of command cmd ("" for ptxvm itself): the message, the
 * nearest of `words` to `word` when one is near, and where help is. */
static int usage_error(const char *cmd, const char *what, const char *word, const char *const *words, size_t n) {
  const char *near = word ? suggest(word, words, n) : NULL;
  fprintf(stderr, "ptxvm%s%s: %s%s%s%s\n", *cmd ? " " : "", cmd, what, near ? "; did you mean " : "",
          near ? near : "", near ? "?" : "");
  fprintf(stderr, "(ptxvm%s%s --help prints the usage)\n", *cmd ? " " : "", cmd);
  return EXIT_INPUT;
}

/* check, info, ptx: FILE and nothing else; --help anywhere is help. */
static int cmd_file(const char *cmd, int argc, char **argv) {
  bool check = !strcmp(cmd, "check");
  static const char *const options[] = {"--help", "--dump-lowered"};
  const char *file = NULL, *kernel = NULL;
  bool dump = false;
  for (int i = 2; i < argc; i++)
    if (is_help(argv[i])) {
      fputs(help_of(cmd), stdout);
      return EXIT_OK;
    }
  for (int i = 2; i < argc; i++) {
    char what[256];
    if (check && !dump && !file && !strcmp(argv[i], "--dump-lowered")) {
      dump = true;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1]) {
      snprintf(what, sizeof what, "unknown option %s", argv[i]);
      return usage_error(cmd, what, argv[i], options, check ? 2 : 1);
    }
    if (file && dump && !kernel) {   /* check --dump-lowered FILE KERNEL */
      kernel = argv[i];
      continue;
    }
    if (file) {
      snprintf(what, sizeof what, "unexpected argument '%s' (one FILE)", argv[i]);
      return usage_error(cmd, what, NULL, NULL, 0);
    }
    file = argv[i];
  }
  if (!file) return usage_error(cmd, "missing FILE", NULL, NULL, 0);
  if (dump) return lowered_dump(file, kernel);
  return !strcmp(cmd, "check") ? cmd_check(file) : !strcmp(cmd, "info") ? cmd_info(file) : image_cmd_ptx(file);
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_INPUT;
  }
  const char *cmd = argv[1];
  if (is_help(cmd)) {
    usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("ptxvm %s\n", ptxvm_version());
    return EXIT_OK;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "exec")) {
    if (argc >= 3 && is_help(argv[2])) {
      fputs(help_of("exec"), stdout);
      return EXIT_OK;
    }
    return cmd_exec(argc - 1, argv + 1);
  }
  if (!strcmp(cmd, "check") || !strcmp(cmd, "info") || !strcmp(cmd, "ptx")) return cmd_file(cmd, argc, argv);
  static const char *const top_options[] = {"--help", "--version"};
  char what[256];
  bool option = cmd[0] == '-';
  snprintf(what, sizeof what, "unknown %s %s", option ? "option" : "command", cmd);
  return option ? usage_error("", what, cmd, top_options, 2)
                : usage_error("", what, cmd, commands, sizeof commands / sizeof commands[0]);
}

/* Output that could not be written (a full disk, a closed pipe or stdout)
 * is an error, exit status 2, never a silent success. A closed standard
 * output gets /dev/null opened read-only in its place, so that writes fail
 * (EBADF) instead of landing in the next file opened. */
int main(int argc, char **argv) {
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0 && fd != STDOUT_FILENO) close(fd);
  }
  int rc = dispatch(argc, argv);
  if (fflush(stdout)) stdout_failed();
  bool bad = ferror(stdout);
  if (fclose(stdout)) stdout_failed();
  if (bad || stdout_errno) {
    if (!run_stdout_reported)
      fprintf(stderr, "ptxvm: cannot write standard output: %s\n", strerror(stdout_errno ? stdout_errno : EIO));
    rc = EXIT_INPUT;
  }
  return rc;
}
