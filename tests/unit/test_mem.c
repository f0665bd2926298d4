/* test_mem.c: the device allocator (src/mem/device.c), the success paths of
 * mem_ptr's windows (src/mem/access.c; its faults are covered by the
 * conformance cases in tests/ptx/mem/, which need the interpreter), the
 * launch configuration checks (src/sched/launch.c) and the public memory API.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <stdio.h>
#include <string.h>

#include "../../include/ptxvm.h"
#include "../../src/exec/interp.h"
#include "../../src/mem/mem.h"

#include "check.h"

static void test_alloc(void) {
  Device *d = dev_create((size_t)1 << 30);
  CHECK(d != NULL);
  if (!d) return;
  uint64_t a = dev_alloc(d, 100, 256), b = dev_alloc(d, 1000, 256), z = dev_alloc(d, 0, 256);
  CHECK(a % 256 == 0 && !mem_in_window(a));
  CHECK(b % 256 == 0 && b >= a + 100);
  CHECK(z != 0 && z != a && z != b);
  CHECK(dev_alloc_size(d, a) == 100 && dev_alloc_size(d, b) == 1000 && dev_alloc_size(d, z) == 0);
  CHECK(dev_alloc_size(d, a + 4) == 0);
  /* memory is zeroed and usable */
  uint8_t *p = dev_host(d, a, 100);
  CHECK(p != NULL);
  int zero = 1;
  for (int i = 0; p && i < 100; i++) zero &= p[i] == 0;
  CHECK(zero);
  if (p) memset(p, 0xab, 100);
  /* bounds: inside, straddling the end, past the end, before the start */
  CHECK(dev_host(d, a + 96, 4) == (uint8_t *)p + 96);
  CHECK(dev_host(d, a + 97, 4) == NULL);
  CHECK(dev_host(d, a + 100, 1) == NULL);
  CHECK(dev_host(d, a - 1, 1) == NULL);
  CHECK(dev_host(d, 0, 4) == NULL);
  CHECK(dev_host(d, b + 999, 1) != NULL && dev_host(d, b + 999, 2) == NULL);
  CHECK(dev_host(d, z, 0) != NULL && dev_host(d, z, 1) == NULL);
  uint64_t s, n;
  CHECK(dev_find(d, b + 10, &s, &n, NULL) && s == b && n == 1000);
  CHECK(dev_find(d, a + 200, &s, &n, NULL) && s == a && n == 100);   /* a's guard: reported against a */
  CHECK(!dev_find(d, b + 100000, &s, &n, NULL));
  /* free, then the gap is reused and zeroed again */
  CHECK(dev_free(d, a));
  CHECK(!dev_free(d, a));
  CHECK(!dev_free(d, b + 8));
  CHECK(dev_host(d, a, 4) == NULL);
  uint64_t c = dev_alloc(d, 64, 256);
  CHECK(c == a);
  uint8_t *q = dev_host(d, c, 64);
  CHECK(q && q[0] == 0 && q[63] == 0);
  /* alignment larger than 256, and bad alignments */
  uint64_t big = dev_alloc(d, 10, 4096);
  CHECK(big && big % 4096 == 0);
  CHECK(dev_alloc(d, 10, 3) == 0 && dev_alloc(d, 10, 0) == 0);
  /* growth past the first commit step, and exhaustion */
  uint64_t large = dev_alloc(d, (uint64_t)64 << 20, 256);
  CHECK(large != 0);
  uint8_t *lp = dev_host(d, large, (uint64_t)64 << 20);
  CHECK(lp != NULL);
  if (lp) { lp[0] = 1; lp[((size_t)64 << 20) - 1] = 2; }
  CHECK(dev_alloc(d, (uint64_t)2 << 30, 256) == 0);
  /* many allocations: the table stays sorted, lookups find each one */
  uint64_t many[300];
  for (int i = 0; i < 300; i++) many[i] = dev_alloc(d, (uint64_t)(i % 7) * 16 + 4, 256);
  int ok = 1;
  for (int i = 0; i < 300; i++) ok &= many[i] && dev_host(d, many[i] + 3, 1) != NULL;
  for (int i = 0; i < 300; i += 2) ok &= dev_free(d, many[i]);
  for (int i = 0; i < 300; i++) ok &= (dev_host(d, many[i], 1) != NULL) == (i % 2 == 1);
  CHECK(ok);
  dev_destroy(d);
  dev_destroy(NULL);
}

static void test_windows(void) {
  Device *d = dev_create((size_t)1 << 26);
  uint64_t g = dev_alloc(d, 64, 256);
  uint8_t shared[128], local[4 * 32], params[16];
  Launch l = {.dev = d, .params = params, .param_size = sizeof params};
  Cta c = {.launch = &l, .shared = shared, .shared_size = sizeof shared};
  Warp w = {.cta = &c, .launch = &l, .local = local, .local_size = 4};
  CHECK(mem_ptr(&w, NULL, 0, SP_GLOBAL, g + 8, 8, 8, false) == dev_host(d, g + 8, 8));
  CHECK(mem_ptr(&w, NULL, 0, SP_NONE, g + 60, 4, 4, true) == dev_host(d, g + 60, 4));
  CHECK(mem_ptr(&w, NULL, 0, SP_SHARED, 124, 4, 4, true) == shared + 124);
  CHECK(mem_ptr(&w, NULL, 0, SP_NONE, SHARED_WINDOW + 16, 16, 16, false) == shared + 16);
  CHECK(mem_ptr(&w, NULL, 3, SP_LOCAL, 0, 4, 4, true) == local + 12);
  CHECK(mem_ptr(&w, NULL, 5, SP_NONE, LOCAL_WINDOW + 2, 2, 2, true) == local + 22);
  CHECK(mem_ptr(&w, NULL, 0, SP_PARAM, 8, 8, 8, false) == params + 8);
  CHECK(mem_ptr(&w, NULL, 0, SP_NONE, PARAM_WINDOW + 4, 4, 4, false) == params + 4);
  CHECK(mem_ptr(&w, NULL, 7, SP_PARAM, LOCAL_WINDOW, 4, 4, true) == local + 28);
  dev_destroy(d);
}

static void test_launch_check(void) {
  Function k;
  memset(&k, 0, sizeof k);
  k.name = "k";
  char err[256];
  uint32_t one[3] = {1, 1, 1}, g[3] = {4, 1, 1}, b[3] = {256, 1, 1}, c[3] = {2, 1, 1};
  CHECK(launch_check(&k, g, b, one, 0, err, sizeof err));
  CHECK(launch_check(&k, g, b, c, 1024, err, sizeof err));
  uint32_t b0[3] = {0, 1, 1}, b2k[3] = {1024, 2, 1}, bz[3] = {1, 1, 65};
  CHECK(!launch_check(&k, g, b0, one, 0, err, sizeof err) && strstr(err, "block dimension x"));
  CHECK(!launch_check(&k, g, b2k, one, 0, err, sizeof err) && strstr(err, "2048 threads"));
  CHECK(!launch_check(&k, g, bz, one, 0, err, sizeof err));
  uint32_t c3[3] = {3, 1, 1}, c9[3] = {9, 1, 1}, g18[3] = {18, 1, 1};
  CHECK(!launch_check(&k, g, b, c3, 0, err, sizeof err) && strstr(err, "not a multiple"));
  CHECK(!launch_check(&k, g18, b, c9, 0, err, sizeof err) && strstr(err, "at most 8"));
  CHECK(!launch_check(&k, g, b, one, 300 * 1024, err, sizeof err) && strstr(err, "shared"));
  CHECK(!launch_check(&k, g, b, one, 1ull << 32, err, sizeof err) && strstr(err, "4294967296 bytes"));
  k.reqntid[0] = 128;
  CHECK(!launch_check(&k, g, b, one, 0, err, sizeof err) && strstr(err, ".reqntid"));
  uint32_t b128[3] = {128, 1, 1};
  CHECK(launch_check(&k, g, b128, one, 0, err, sizeof err));
  k.reqntid[0] = 0;
  k.maxntid[0] = 16, k.maxntid[1] = 8;
  uint32_t b129[3] = {129, 1, 1};
  CHECK(launch_check(&k, g, b128, one, 0, err, sizeof err));
  CHECK(!launch_check(&k, g, b129, one, 0, err, sizeof err) && strstr(err, ".maxntid"));
  k.maxntid[0] = k.maxntid[1] = 0;
  k.reqnctapercluster[0] = 2;
  CHECK(launch_check(&k, g, b, c, 0, err, sizeof err));
  CHECK(!launch_check(&k, g, b, one, 0, err, sizeof err) && strstr(err, ".reqnctapercluster"));
}

static void test_api_memory(void) {
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_devptr p, q;
  uint32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
  CHECK(ptxvm_mem_alloc(ctx, sizeof in, &p) == PTXVM_SUCCESS && p % 256 == 0);
  CHECK(ptxvm_mem_alloc(ctx, sizeof in, &q) == PTXVM_SUCCESS);
  size_t sz;
  CHECK(ptxvm_mem_size(ctx, p, &sz) == PTXVM_SUCCESS && sz == sizeof in);
  CHECK(ptxvm_memcpy_htod(ctx, p, in, sizeof in) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtod(ctx, q, p, sizeof in) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, out, q, sizeof out) == PTXVM_SUCCESS && !memcmp(in, out, sizeof in));
  CHECK(ptxvm_memcpy_htod(ctx, p + 4, in, sizeof in) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(strstr(ptxvm_last_error(ctx), "not inside one allocation") != NULL);
  CHECK(ptxvm_memset_d32(ctx, p + 4, 0xdeadbeef, 7) == PTXVM_SUCCESS);
  CHECK(ptxvm_memset_d32(ctx, p + 2, 1, 1) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_memset_d8(ctx, p, 0x11, 4) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, out, p, sizeof out) == PTXVM_SUCCESS && out[0] == 0x11111111u &&
        out[1] == 0xdeadbeefu && out[7] == 0xdeadbeefu);
  CHECK(ptxvm_mem_free(ctx, p) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_free(ctx, p) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_free(ctx, 0) == PTXVM_SUCCESS);
  CHECK(ptxvm_memcpy_dtoh(ctx, out, p, 4) == PTXVM_ERROR_INVALID_ADDRESS);
  ptxvm_context_destroy(ctx);   /* frees q with the device */
}

int main(void) {
  test_alloc();
  test_windows();
  test_launch_check();
  test_api_memory();
  return unit_report();
}
