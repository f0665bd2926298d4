/* exec.c: `ptxvm exec [OPTIONS] [--] PROGRAM [ARGS...]`: runs PROGRAM with
 * ptxvm's libcuda.so.1 as its CUDA driver (src/cuda/).
 *
 * The library directory (the directory of this executable, or ../lib/ptxvm
 * beside it, where an install is to keep it off the system's library path,
 * whichever holds libcuda.so.1) goes first in
 * LD_LIBRARY_PATH, so PROGRAM and whatever it dlopens find ptxvm's driver;
 * the launch options become the environment variables the driver reads at
 * cuInit (README "ptxvm exec"); then PROGRAM replaces this process, so its
 * exit status is the program's own. Options end at the first argument that
 * is not one (or at --): PROGRAM's own options are never read. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"

enum { EXEC_INPUT = 2, EXEC_NOT_FOUND = 127, EXEC_CANNOT_RUN = 126 };

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ptxvm exec: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nusage: ptxvm exec [--check] [-j N] [--schedule SEED] [--async-delay NS] "
        "[--max-steps N] [--stats] [-q] [--] PROGRAM [ARGS...]\n", stderr);
  return EXEC_INPUT;
}

/* The directory holding ptxvm's libcuda.so.1, in buf; false if none. */
static bool lib_dir(char *buf, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return false;
  exe[len] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return false;
  *slash = 0;
  const char *tails[] = {"", "/../lib/ptxvm"};
  for (int i = 0; i < 2; i++) {
    char lib[PATH_MAX + 32];
    snprintf(lib, sizeof lib, "%s%s/libcuda.so.1", exe, tails[i]);
    if (access(lib, R_OK) == 0) {
      snprintf(buf, n, "%s%s", exe, tails[i]);
      return true;
    }
  }
  return false;
}

/* An unsigned decimal or 0x number, whole. */
static bool is_number(const char *s) {
  if (!s || !*s || *s == '-') return false;
  char *end;
  errno = 0;
  (void)strtoull(s, &end, 0);
  return !*end && !errno;
}

/* One option taking a number: sets the environment variable. */
static int number_opt(char **argv, int *i, int argc, const char *var) {
  if (*i + 1 >= argc || !is_number(argv[*i + 1])) return bad("%s needs an unsigned number", argv[*i]);
  setenv(var, argv[++*i], 1);
  return 0;
}

int cmd_exec(int argc, char **argv) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    int rc = 0;
    if (!strcmp(a, "--")) { i++; break; }
    else if (!strcmp(a, "--check")) setenv("PTXVM_CHECK", "1", 1);
    else if (!strcmp(a, "--stats")) setenv("PTXVM_STATS", "1", 1);
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) setenv("PTXVM_QUIET", "1", 1);
    else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) rc = number_opt(argv, &i, argc, "PTXVM_JOBS");
    else if (!strcmp(a, "--schedule")) rc = number_opt(argv, &i, argc, "PTXVM_SCHEDULE");
    else if (!strcmp(a, "--async-delay")) rc = number_opt(argv, &i, argc, "PTXVM_ASYNC_DELAY");
    else if (!strcmp(a, "--max-steps")) rc = number_opt(argv, &i, argc, "PTXVM_MAX_STEPS");
    else return bad("unknown option %s", a);
    if (rc) return rc;
  }
  if (i >= argc) return bad("%s", "no PROGRAM given");
  char dir[PATH_MAX + 16];
  if (!lib_dir(dir, sizeof dir))
    return bad("%s", "ptxvm's libcuda.so.1 is neither beside this executable nor in ../lib/ptxvm");
  const char *old = getenv("LD_LIBRARY_PATH");
  size_t n = strlen(dir) + (old ? strlen(old) : 0) + 2;
  char *path = malloc(n);
  if (!path) return bad("%s", "out of memory");
  snprintf(path, n, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
  setenv("LD_LIBRARY_PATH", path, 1);
  free(path);
  fflush(NULL);
  execvp(argv[i], argv + i);
  int e = errno;
  fprintf(stderr, "ptxvm exec: %s: %s\n", argv[i], strerror(e));
  return e == ENOENT ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
}
