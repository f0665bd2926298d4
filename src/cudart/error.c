/* error.c: the runtime's errors.
 *
 * Every entry point returns through rt_ret, which keeps the calling
 * thread's last error for cudaGetLastError (returns and clears it) and
 * cudaPeekAtLastError (returns it). A kernel fault is the driver's sticky
 * context error: every later call that touches the device returns it, and
 * so does cudaGetLastError each time, as the runtime does for errors that
 * corrupt the context (it cannot be cleared; cudaDeviceReset starts anew).
 *
 * The runtime's error numbers are the driver's where cuda.h and
 * driver_types.h share a value (CUDA_ERROR_ILLEGAL_ADDRESS and
 * cudaErrorIllegalAddress are both 700, ...); a driver result without a
 * runtime counterpart is cudaErrorUnknown. The names come from
 * driver_types.h (errors.def); each string is the name's words. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static _Thread_local cudaError_t last_error;
static _Thread_local unsigned last_epoch;   /* rt_epoch when last_error was set */

static bool sticky(cudaError_t e) {
  switch (e) {
  case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorMisalignedAddress:
  case cudaErrorAssert: case cudaErrorLaunchTimeout: case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction: case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc:
    return true;
  default: return false;
  }
}

cudaError_t rt_error(CUresult r) {
  switch ((int)r) {
#define R(name, value) case value:
#include "errors.def"
#undef R
    return (cudaError_t)r;
  default: return cudaErrorUnknown;
  }
}

/* A sticky error belongs to the context that faulted: once cudaDeviceReset
 * (on any thread) has replaced it, it is gone. */
static cudaError_t current(void) {
  if (sticky(last_error) && last_epoch != rt_epoch) last_error = cudaSuccess;
  return last_error;
}

cudaError_t rt_ret(cudaError_t e) {
  if (e != cudaSuccess && !sticky(current())) {
    last_error = e;
    last_epoch = rt_epoch;
  }
  return e;
}

void rt_stub_error(void);
void rt_stub_error(void) { rt_ret(cudaErrorNotSupported); }

cudaError_t cudaGetLastError(void) {
  cudaError_t e = current();
  if (!sticky(e)) last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return current(); }

typedef struct { const char *name; int value; } ErrName;
static const ErrName names[] = {
#define R(name, value) {#name, value},
#include "errors.def"
#undef R
};

const char *cudaGetErrorName(cudaError_t error) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].value == (int)error) return names[i].name;
  return "cudaErrorUnknown";
}

/* "cudaErrorIllegalAddress" -> "illegal address" (lower-cased words; runs
 * of capitals such as ECC or PTX kept). One buffer per error, made once. */
const char *cudaGetErrorString(cudaError_t error) {
  enum { N = sizeof names / sizeof names[0] };
  static char text[N][64];
  static atomic_int done[N];   /* 0 not made, 1 being made, 2 made */
  if (error == cudaSuccess) return "no error";
  for (size_t i = 0; i < N; i++) {
    if (names[i].value != (int)error) continue;
    int expect = 0;
    if (atomic_compare_exchange_strong(&done[i], &expect, 1)) {
      const char *s = names[i].name + strlen("cudaError");
      size_t k = 0;
      for (size_t j = 0; s[j] && k + 2 < sizeof text[i]; j++) {
        char ch = s[j];
        bool up = ch >= 'A' && ch <= 'Z';
        bool next_low = s[j + 1] >= 'a' && s[j + 1] <= 'z';
        bool prev_up = j > 0 && s[j - 1] >= 'A' && s[j - 1] <= 'Z';
        if (up && j > 0 && (!prev_up || next_low)) text[i][k++] = ' ';
        text[i][k++] = up && next_low ? (char)(ch - 'A' + 'a') : ch;
      }
      text[i][k] = 0;
      atomic_store(&done[i], 2);
    }
    while (atomic_load(&done[i]) != 2) {}
    return text[i];
  }
  return "unrecognized error code";
}

void rt_say(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fflush(stdout);   /* the program's output so far comes first */
  fprintf(stderr, "ptxvm: %s\n", buf);
}

cudaError_t rt_unsupported(const char *what) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static const char *said[64];   /* the names said so far (static strings) */
  static int nsaid;
  bool say = true;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nsaid && say; i++) say = strcmp(said[i], what) != 0;
  if (say && nsaid < 64) said[nsaid++] = what;
  pthread_mutex_unlock(&lock);
  if (say) rt_say("%s is not implemented", what);
  return rt_ret(cudaErrorNotSupported);
}
