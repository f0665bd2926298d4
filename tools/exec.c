/* exec.c: `ptxvm exec [OPTIONS] [--] PROGRAM [ARGS...]`: runs PROGRAM with
 * ptxvm's libcuda.so.1 as its CUDA driver (src/cuda/).
 *
 * The library directory (the directory of this executable, or ../lib/ptxvm
 * beside it, where an install is to keep it off the system's library path,
 * whichever holds libcuda.so.1) goes first in
 * LD_LIBRARY_PATH, so PROGRAM and whatever it dlopens find ptxvm's driver;
 * the launch options become the environment variables the driver reads at
 * cuInit (README "ptxvm exec"); then PROGRAM replaces this process, so its
 * exit status is the program's own (under --check, PROGRAM runs as a child
 * instead, and a program that exits 0 after checker findings makes the
 * status 1: run_checked). Options end at the first argument that
 * is not one (or at --): PROGRAM's own options are never read.
 *
 * The same directory holds ptxvm's CUDA runtime (libcudart.so.13), which a
 * program linked with `nvcc -cudart shared` loads. A program linked with
 * nvcc's default static runtime cannot run: NVIDIA's static runtime talks
 * to the driver through undocumented export tables, which ptxvm does not
 * serve. exec recognises such a program before starting it (an ELF file
 * that carries device code, a .nv_fatbin or __nv_relfatbin section, and has
 * no libcudart.so in its DT_NEEDED) and says how to rebuild it, exit 1.
 *
 * Unless --keep-nvjitlink is given, nvJitLink is hidden from PROGRAM
 * (hide_nvjitlink; tools/nvjitlink_hidden.c says why), so CUDA Python links
 * PTX through the driver's cuLink* instead of writing cubins. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "suggest.h"

enum { EXEC_INPUT = 2, EXEC_NOT_FOUND = 127, EXEC_CANNOT_RUN = 126 };

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ptxvm exec: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nusage: ptxvm exec [--check] [-j N] [--schedule SEED] [--async-delay NS] "
        "[--max-steps N] [--trace FILE.json] [--stats] [-q] [--keep-nvjitlink] [--] PROGRAM [ARGS...]\n", stderr);
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

/* The file execvp would run for name (searching PATH when it has no '/'),
 * in buf; false if none. */
static bool find_program(const char *name, char *buf, size_t n) {
  if (strchr(name, '/')) {
    snprintf(buf, n, "%s", name);
    return access(buf, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    snprintf(buf, n, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
    if (access(buf, X_OK) == 0) return true;
    p += len + (colon != NULL);
  }
  return false;
}

/* Whether the file is a 64-bit little-endian ELF executable or library with
 * device code (a .nv_fatbin or __nv_relfatbin section) and without
 * libcudart.so.* among its DT_NEEDED libraries: a program linked with the
 * static CUDA runtime. Anything unreadable or malformed is not one (exec
 * leaves it to the system). */
static bool static_runtime(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  bool fatbin = false, shared_rt = false;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  char *names = NULL, *dynstr = NULL;
  Elf64_Dyn *dyn = NULL;
  if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
    goto done;
  sh = calloc(eh.e_shnum, sizeof *sh);
  if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) || fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum) goto done;
  /* reads section i's bytes, NUL-terminated, bounded to 64 MiB */
#define READ_SECTION(i, out)                                                     do {                                                                             if (sh[i].sh_size > (64u << 20) || !((out) = calloc(1, sh[i].sh_size + 1)) ||         fseek(f, (long)sh[i].sh_offset, SEEK_SET) ||                                   fread((out), 1, sh[i].sh_size, f) != sh[i].sh_size) goto done;            } while (0)
  READ_SECTION(eh.e_shstrndx, names);
  for (int i = 0; i < eh.e_shnum; i++) {
    if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size) continue;
    const char *nm = names + sh[i].sh_name;
    if (!strcmp(nm, ".nv_fatbin") || !strcmp(nm, "__nv_relfatbin")) fatbin = true;
    if (sh[i].sh_type == SHT_DYNAMIC && !dyn && sh[i].sh_link < eh.e_shnum) {
      READ_SECTION(i, dyn);
      READ_SECTION(sh[i].sh_link, dynstr);
      size_t nstr = sh[sh[i].sh_link].sh_size;
      for (size_t k = 0; k < sh[i].sh_size / sizeof *dyn && dyn[k].d_tag != DT_NULL; k++)
        if (dyn[k].d_tag == DT_NEEDED && dyn[k].d_un.d_val < nstr &&
            !strncmp(dynstr + dyn[k].d_un.d_val, "libcudart.so", strlen("libcudart.so")))
          shared_rt = true;
    }
  }
#undef READ_SECTION
done:
  free(sh);
  free(names);
  free(dyn);
  free(dynstr);
  fclose(f);
  return fatbin && !shared_rt;
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

/* Appends `item` to the SEP-separated list in environment variable `var`
 * (set to item alone when unset or empty). False: out of memory. */
static bool env_append(const char *var, char sep, const char *item) {
  const char *old = getenv(var);
  if (!old || !*old) return setenv(var, item, 1) == 0;
  size_t n = strlen(old) + strlen(item) + 2;
  char *s = malloc(n);
  if (!s) return false;
  snprintf(s, n, "%s%c%s", old, sep, item);
  int rc = setenv(var, s, 1);
  free(s);
  return rc == 0;
}

/* Hides nvJitLink from PROGRAM: dir/nvjitlink/libnvJitLink.so.13 (and .so.12,
 * the same object) go last in LD_PRELOAD, after any the user preloads, so
 * cuda.pathfinder finds them loaded and cuda.core falls back to cuLink*
 * (tools/nvjitlink_hidden.c). A preload ahead of a dynamically linked ASan
 * runtime trips ASan's link-order check, a false alarm here since the object
 * defines no function: verify_asan_link_order=0 goes last in ASAN_OPTIONS.
 * One line on stderr says so, unless quiet. Returns 0, or the exit status of
 * a failure. */
static int hide_nvjitlink(const char *dir, bool quiet) {
  char lib[2][PATH_MAX + 64];
  for (int k = 0; k < 2; k++) {
    snprintf(lib[k], sizeof lib[k], "%s/nvjitlink/libnvJitLink.so.%d", dir, 13 - k);
    if (access(lib[k], R_OK) != 0) {
      fprintf(stderr, "ptxvm exec: %s is missing, so nvJitLink is not hidden: CUDA Python may link "
              "cubins ptxvm cannot load (rebuild ptxvm, or pass --keep-nvjitlink)\n", lib[k]);
      return 0;
    }
  }
  if (!env_append("LD_PRELOAD", ':', lib[0]) || !env_append("LD_PRELOAD", ':', lib[1]) ||
      !env_append("ASAN_OPTIONS", ':', "verify_asan_link_order=0"))
    return bad("%s", "out of memory");
  if (!quiet)
    fputs("ptxvm exec: nvJitLink hidden, so CUDA Python links PTX with the driver's cuLink* "
          "(--keep-nvjitlink to keep it; README \"Python\")\n", stderr);
  return 0;
}

/* Under --check: PROGRAM runs as a child with PTXVM_CHECK_FD naming a
 * pipe, down which the driver writes a byte per launch with findings; the
 * exit status is the program's, except 1 when it exits 0 after findings
 * (as `ptxvm run --check`). A program killed by a signal: this process dies
 * of the same signal. The child dies with this process (PR_SET_PDEATHSIG),
 * and SIGINT/SIGQUIT, which reach both, are left to the child. */
static int run_checked(char **prog) {
  int fds[2];
  if (pipe(fds) != 0) return bad("pipe: %s", strerror(errno));
  fcntl(fds[1], F_SETFL, O_NONBLOCK);   /* the driver never blocks on it */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  char num[16];
  snprintf(num, sizeof num, "%d", fds[1]);
  setenv("PTXVM_CHECK_FD", num, 1);
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) return bad("fork: %s", strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(EXEC_CANNOT_RUN);   /* it died already */
    execvp(prog[0], prog);
    int e = errno;
    fprintf(stderr, "ptxvm exec: %s: %s\n", prog[0], strerror(e));
    _exit(e == ENOENT ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN);
  }
  close(fds[1]);
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return bad("waitpid: %s", strerror(errno));
  fcntl(fds[0], F_SETFL, O_NONBLOCK);   /* a grandchild may hold the write end */
  char b;
  bool findings = read(fds[0], &b, 1) == 1;
  close(fds[0]);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return rc == 0 && findings ? 1 : rc;
}

int cmd_exec(int argc, char **argv) {
  bool keep_nvjitlink = false;
  const char *q = getenv("PTXVM_QUIET");
  bool quiet = q && !strcmp(q, "1");
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    int rc = 0;
    if (!strcmp(a, "--")) { i++; break; }
    else if (!strcmp(a, "--check")) setenv("PTXVM_CHECK", "1", 1);
    else if (!strcmp(a, "--stats")) setenv("PTXVM_STATS", "1", 1);
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { setenv("PTXVM_QUIET", "1", 1); quiet = true; }
    else if (!strcmp(a, "--keep-nvjitlink")) keep_nvjitlink = true;
    else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) rc = number_opt(argv, &i, argc, "PTXVM_JOBS");
    else if (!strcmp(a, "--schedule")) rc = number_opt(argv, &i, argc, "PTXVM_SCHEDULE");
    else if (!strcmp(a, "--async-delay")) rc = number_opt(argv, &i, argc, "PTXVM_ASYNC_DELAY");
    else if (!strcmp(a, "--max-steps")) rc = number_opt(argv, &i, argc, "PTXVM_MAX_STEPS");
    else if (!strcmp(a, "--trace")) {
      if (i + 1 >= argc) return bad("--trace needs a file name");
      setenv("PTXVM_TRACE", argv[++i], 1);
    }
    else {
      static const char *const options[] = {"--check", "--stats", "--quiet", "--jobs", "--schedule",
                                            "--async-delay", "--max-steps", "--trace", "--keep-nvjitlink", "--help"};
      const char *near = suggest(a, options, sizeof options / sizeof options[0]);
      return near ? bad("unknown option %s; did you mean %s?", a, near) : bad("unknown option %s", a);
    }
    if (rc) return rc;
  }
  if (i >= argc) return bad("%s", "no PROGRAM given");
  char dir[PATH_MAX + 16];
  if (!lib_dir(dir, sizeof dir))
    return bad("%s", "ptxvm's libcuda.so.1 is neither beside this executable nor in ../lib/ptxvm");
  char prog[PATH_MAX + 256];
  if (!find_program(argv[i], prog, sizeof prog)) {   /* said before any notice of ours */
    int e = strchr(argv[i], '/') && access(argv[i], F_OK) == 0 ? EACCES : ENOENT;
    fprintf(stderr, "ptxvm exec: %s: %s\n", argv[i], strerror(e));
    return e == ENOENT ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
  }
  if (static_runtime(prog)) {
    fprintf(stderr, "ptxvm exec: %s is linked with the static CUDA runtime, which ptxvm cannot serve: "
            "rebuild it with `nvcc -cudart shared` (CMake: CUDA_RUNTIME_LIBRARY Shared)\n", argv[i]);
    return 1;
  }
  const char *old = getenv("LD_LIBRARY_PATH");
  size_t n = strlen(dir) + (old ? strlen(old) : 0) + 2;
  char *path = malloc(n);
  if (!path) return bad("%s", "out of memory");
  snprintf(path, n, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
  setenv("LD_LIBRARY_PATH", path, 1);
  free(path);
  if (!keep_nvjitlink) {
    int rc = hide_nvjitlink(dir, quiet);
    if (rc) return rc;
  }
  fflush(NULL);
  const char *check = getenv("PTXVM_CHECK");
  if (check && *check && strcmp(check, "0") != 0) return run_checked(argv + i);
  execvp(argv[i], argv + i);
  int e = errno;
  fprintf(stderr, "ptxvm exec: %s: %s\n", argv[i], strerror(e));
  return e == ENOENT ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
}
