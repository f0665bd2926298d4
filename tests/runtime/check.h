// check.h: the self-checking helpers of tests/runtime (tests/run.py runtime:).
#pragma once
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int failures;

// CHECK(cond): a failed expectation prints FAIL with the line and is counted.
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                \
    }                                                                            \
  } while (0)

// EXPECT(call, err): the runtime call returns err.
#define EXPECT(call, err)                                                        \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != (err)) {                                                           \
      printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,    \
             #call, cudaGetErrorName(e_), #err);                                 \
      failures++;                                                                \
    }                                                                            \
  } while (0)
#define OK(call) EXPECT(call, cudaSuccess)

static int finish(void) {
  if (failures) printf("%d failures\n", failures);
  else printf("ok\n");
  return failures != 0;
}
