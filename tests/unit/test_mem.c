/* test_mem.c: the device allocator (src/mem/device.c), the success paths of
 * mem_ptr's windows (src/exec/access.c; its faults are covered by the
 * conformance cases in tests/ptx/mem/, which need the interpreter), the
 * launch configuration checks (src/sched/launch.c) and the public memory API;
 * unified addresses: the arena's placement and its fallback, the two views,
 * managed, host and registered entries; the device heap (src/mem/heap.c):
 * alignment, exhaustion, reuse, the free errors, several host threads.
 * Prints "N passed, M failed"; exits nonzero on a failure. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../include/ptxvm.h"
#include "../../src/exec/interp.h"
#include "../../src/mem/mem.h"

#include "check.h"

static void test_alloc(void) {
  Device *d = dev_create((size_t)1 << 30);
  CHECK(d != NULL);
  if (!d) return;
  uint64_t a = dev_alloc(d, 100, 256, 0), b = dev_alloc(d, 1000, 256, 0), z = dev_alloc(d, 0, 256, 0);
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
  uint64_t c = dev_alloc(d, 64, 256, 0);
  CHECK(c == a);
  uint8_t *q = dev_host(d, c, 64);
  CHECK(q && q[0] == 0 && q[63] == 0);
  /* alignment larger than 256, and bad alignments */
  uint64_t big = dev_alloc(d, 10, 4096, 0);
  CHECK(big && big % 4096 == 0);
  CHECK(dev_alloc(d, 10, 3, 0) == 0 && dev_alloc(d, 10, 0, 0) == 0);
  /* growth past the first commit step, and exhaustion */
  uint64_t large = dev_alloc(d, (uint64_t)64 << 20, 256, 0);
  CHECK(large != 0);
  uint8_t *lp = dev_host(d, large, (uint64_t)64 << 20);
  CHECK(lp != NULL);
  if (lp) { lp[0] = 1; lp[((size_t)64 << 20) - 1] = 2; }
  CHECK(dev_alloc(d, (uint64_t)2 << 30, 256, 0) == 0);
  /* many allocations: the table stays sorted, lookups find each one */
  uint64_t many[300];
  for (int i = 0; i < 300; i++) many[i] = dev_alloc(d, (uint64_t)(i % 7) * 16 + 4, 256, 0);
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
  uint64_t g = dev_alloc(d, 64, 256, 0);
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

/* The permissions /proc/self/maps gives the page holding addr ("---" for
 * PROT_NONE), or "" when it is not mapped. */
static const char *perms_of(uint64_t addr) {
  static char perm[8];
  perm[0] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  unsigned long long lo, hi;
  char p[5];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%llx-%llx %4s", &lo, &hi, p) == 3 && lo <= addr && addr < hi) {
      memcpy(perm, p, 4);
      perm[3] = 0;
      break;
    }
  if (f) fclose(f);
  return perm;
}

/* Whether [at, at + bytes) is free address space now (probed, released). */
static int range_free(uint64_t at, uint64_t bytes) {
  void *p = mmap((void *)(uintptr_t)at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MEM_NOREPLACE,
                 -1, 0);
  if (p == MAP_FAILED) return 0;
  munmap(p, bytes);
  return (uintptr_t)p == at;
}

static void test_placement(void) {
  uint64_t sz = (uint64_t)1 << 26;
  int fixed_free = range_free(ARENA_FIXED, sz);
  Device *d1 = dev_create(sz), *d2 = dev_create(sz);
  CHECK(d1 && d2);
  if (!d1 || !d2) return;
  uint64_t a = dev_alloc(d1, 64, 256, 0), b = dev_alloc(d2, 64, 256, 0);
  /* the first arena at the fixed address when it was free; the second elsewhere, disjoint */
  CHECK(!fixed_free || a == ARENA_FIXED);
  CHECK(a && b && (b + 64 <= a || b >= a + sz) && !mem_in_window(b));
  CHECK(dev_host(d1, b, 4) == NULL && dev_host(d2, a, 4) == NULL);
  /* the windows are reserved: nothing of the host's lies there */
  CHECK(!strcmp(perms_of(SHARED_WINDOW), "---") || !strcmp(perms_of(SHARED_WINDOW), ""));
  dev_destroy(d2);
  dev_destroy(d1);
  /* the fixed range taken: the arena goes elsewhere and works */
  void *block = mmap((void *)(uintptr_t)ARENA_FIXED, sz, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MEM_NOREPLACE, -1, 0);
  Device *d3 = dev_create(sz);
  uint64_t c = d3 ? dev_alloc(d3, 100, 256, 0) : 0;
  uint64_t blk = block == MAP_FAILED ? 0 : (uintptr_t)block;
  CHECK(c && (c >= blk + sz || c + 100 <= blk));
  uint8_t *cp = d3 ? dev_host(d3, c, 100) : NULL;
  CHECK(cp && cp[99] == 0);
  dev_destroy(d3);
  if (block != MAP_FAILED) munmap(block, sz);
}

static void test_views(void) {
  Device *d = dev_create((size_t)1 << 26);
  CHECK(d != NULL);
  if (!d) return;
  long pg = sysconf(_SC_PAGESIZE);
  uint64_t a = dev_alloc(d, 4096, 256, 0), m = dev_alloc_managed(d, 100, 0), b = dev_alloc(d, 16, 256, 0);
  CHECK(a && m && b && m % (uint64_t)pg == 0 && (b >= m + (uint64_t)pg || b + 16 <= m));
  uint8_t *ka = dev_host(d, a, 4096), *km = dev_host(d, m, 100);
  /* a device buffer: host code reaches it only through the kernel view */
  CHECK(dev_device_hidden(d));
  CHECK(ka && (uintptr_t)ka != a && !strcmp(perms_of(a), "---"));
  CHECK(!strcmp(perms_of((uintptr_t)ka), "rw-"));
  /* managed: the same bytes at the device address and through the kernel view */
  uint8_t *hm = (uint8_t *)(uintptr_t)m;
  CHECK(!strcmp(perms_of(m), "rw-") && km);
  if (km && !strcmp(perms_of(m), "rw-")) {
    hm[7] = 42;
    CHECK(km[7] == 42);
    km[99] = 7;
    CHECK(hm[99] == 7);
  }
  DevRange r;
  CHECK(dev_range(d, m + 50, &r) && r.kind == MK_MANAGED && r.start == m && r.size == 100);
  CHECK(!dev_range(d, m + 100, &r));   /* the guard is no part of it */
  CHECK(dev_range(d, a, &r) && r.kind == MK_DEVICE && r.id);
  uint64_t id_a = r.id;
  CHECK(dev_range(d, b, &r) && r.id > id_a && dev_set_user(d, b, 77) && dev_range(d, b + 3, &r) && r.user == 77);
  CHECK(!dev_set_user(d, b + 1, 1));
  /* freed managed memory is out of the host's reach again, and reads zero when reused */
  CHECK(dev_free(d, m) && !strcmp(perms_of(m), "---"));
  uint64_t m2 = dev_alloc_managed(d, 100, 0);
  CHECK(m2 == m && ((uint8_t *)(uintptr_t)m2)[7] == 0);
  dev_destroy(d);
}

static void test_external(void) {
  Device *d = dev_create((size_t)1 << 26);
  CHECK(d != NULL);
  if (!d) return;
  long pg = sysconf(_SC_PAGESIZE);
  /* host memory of the device: whole pages, kernels use its address */
  uint8_t *h = dev_alloc_host(d, 10);
  CHECK(h && (uintptr_t)h % (uint64_t)pg == 0 && dev_host(d, (uintptr_t)h, 10) == h);
  DevRange r;
  CHECK(h && dev_range(d, (uintptr_t)h + 9, &r) && r.kind == MK_HOST && r.size == 10);
  CHECK(h && !dev_range(d, (uintptr_t)h + 10, &r) && dev_host(d, (uintptr_t)h + 8, 4) == NULL);
  /* registered: the caller's buffer, at its own address */
  uint8_t *buf = malloc(256);
  CHECK(buf && dev_register(d, buf, 256, false) == REG_OK);
  CHECK(dev_host(d, (uintptr_t)buf + 8, 8) == buf + 8 && dev_host_w(d, (uintptr_t)buf, 256) == buf);
  CHECK(dev_register(d, buf, 256, false) == REG_OVERLAP && dev_register(d, buf + 255, 8, false) == REG_OVERLAP);
  CHECK(dev_register(d, buf - 8, 9, false) == REG_OVERLAP);
  CHECK(dev_register(d, (void *)(uintptr_t)(SHARED_WINDOW + 64), 16, false) == REG_WINDOW);
  CHECK(dev_register(d, NULL, 16, false) == REG_EMPTY && dev_register(d, buf, 0, false) == REG_EMPTY);
  uint64_t a = dev_alloc(d, 64, 256, 0);
  CHECK(dev_register(d, (void *)(uintptr_t)a, 16, false) == REG_OVERLAP);
  /* kernels reach it through mem_ptr, generically too */
  Launch l = {.dev = d};
  Warp w = {.launch = &l};
  CHECK(mem_ptr(&w, NULL, 0, SP_NONE, (uintptr_t)buf + 60, 4, 4, true) == buf + 60);
  CHECK(mem_ptr(&w, NULL, 0, SP_GLOBAL, (uintptr_t)buf + 248, 8, 8, false) == buf + 248);
  /* unmapped or read-only host memory */
  uint8_t *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  if (m != MAP_FAILED) {
    munmap(m + pg, (size_t)pg);
    CHECK(dev_register(d, m, (uint64_t)pg * 2, false) == REG_UNMAPPED);
    mprotect(m, (size_t)pg, PROT_READ);
    CHECK(dev_register(d, m, (uint64_t)pg, false) == REG_UNMAPPED);
    CHECK(dev_register(d, m, (uint64_t)pg, true) == REG_OK);
    CHECK(dev_host(d, (uintptr_t)m, 4) == m && dev_host_w(d, (uintptr_t)m, 4) == NULL);
    CHECK(dev_unregister(d, (uintptr_t)m));
    munmap(m, (size_t)pg);
  }
  /* arena allocations still find their gaps among external entries */
  int ok = 1;
  for (int i = 0; i < 50; i++) {
    uint64_t x = dev_alloc(d, 1000, 256, 0);
    ok &= x && dev_range(d, x, &r) && r.kind == MK_DEVICE && dev_host(d, x + 999, 1) != NULL;
  }
  CHECK(ok);
  CHECK(!dev_free(d, (uintptr_t)buf) && dev_unregister(d, (uintptr_t)buf) && !dev_unregister(d, (uintptr_t)buf));
  CHECK(dev_host(d, (uintptr_t)buf, 1) == NULL);
  CHECK(!dev_unregister(d, (uintptr_t)h) && dev_free(d, (uintptr_t)h) && dev_host(d, (uintptr_t)h, 1) == NULL);
  CHECK(dev_alloc_host(d, 5) != NULL);   /* freed by dev_destroy */
  dev_destroy(d);
  free(buf);
}

static void test_api_unified(void) {
  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_devptr m = 0, p = 0;
  void *h = NULL, *hp = NULL;
  uint32_t reg[16] = {0};
  ptxvm_mem_range r;
  CHECK(ptxvm_mem_alloc_managed(ctx, 64, &m) == PTXVM_SUCCESS && ptxvm_mem_alloc(ctx, 64, &p) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_alloc_host(ctx, 32, &h) == PTXVM_SUCCESS && h);
  CHECK(ptxvm_mem_register(ctx, reg, sizeof reg, 0) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_register(ctx, reg + 2, 4, 0) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_register(ctx, NULL, 4, 0) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_mem_query(ctx, m + 3, &r) == PTXVM_SUCCESS && r.kind == PTXVM_MEM_MANAGED && r.base == m);
  CHECK(ptxvm_mem_query(ctx, p, &r) == PTXVM_SUCCESS && r.kind == PTXVM_MEM_DEVICE && r.size == 64);
  CHECK(ptxvm_mem_query(ctx, (uintptr_t)h, &r) == PTXVM_SUCCESS && r.kind == PTXVM_MEM_HOST);
  CHECK(ptxvm_mem_query(ctx, (uintptr_t)(reg + 15), &r) == PTXVM_SUCCESS && r.kind == PTXVM_MEM_REGISTERED);
  CHECK(ptxvm_mem_query(ctx, (uintptr_t)(reg + 16), &r) == PTXVM_ERROR_NOT_FOUND);
  CHECK(ptxvm_mem_set_user(ctx, p, 9) == PTXVM_SUCCESS && ptxvm_mem_query(ctx, p + 1, &r) == PTXVM_SUCCESS && r.user == 9);
  /* copies reach every kind; the host pointer of a device buffer is its second mapping */
  uint32_t v = 0x12345678;
  CHECK(ptxvm_memcpy_htod(ctx, (uintptr_t)(reg + 3), &v, 4) == PTXVM_SUCCESS && reg[3] == v);
  CHECK(ptxvm_memcpy_dtod(ctx, p + 8, (uintptr_t)(reg + 3), 4) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_host_ptr(ctx, p + 8, 4, &hp) == PTXVM_SUCCESS && hp != (void *)(uintptr_t)(p + 8) &&
        *(uint32_t *)hp == v);
  CHECK(ptxvm_mem_host_ptr(ctx, m, 64, &hp) == PTXVM_SUCCESS && hp);
  CHECK(ptxvm_mem_host_ptr(ctx, p, 65, &hp) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_free(ctx, (uintptr_t)reg) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_unregister(ctx, reg) == PTXVM_SUCCESS && ptxvm_mem_unregister(ctx, reg) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_free(ctx, (uintptr_t)h) == PTXVM_SUCCESS && ptxvm_mem_free(ctx, m) == PTXVM_SUCCESS);
  ptxvm_context_destroy(ctx);
}

/* Padding (dev_alloc's pad, ptxvm_set_alloc_padding): kernels reach the
 * bytes up to the next multiple of 256 through dev_host_padded; dev_host
 * (copies) keeps the requested size; the guard follows the padding, so the
 * next allocation starts past it. */
static void test_padding(void) {
  Device *d = dev_create((size_t)1 << 30);
  CHECK(d != NULL);
  if (!d) return;
  uint64_t a = dev_alloc(d, 40, 256, 256), b = dev_alloc(d, 40, 256, 0), z = dev_alloc(d, 0, 256, 256);
  CHECK(a && b && z && dev_alloc_size(d, a) == 40);
  CHECK(dev_host(d, a + 40, 4) == NULL && dev_host_padded(d, a + 40, 24, true) != NULL);
  CHECK(dev_host_padded(d, a + 252, 4, false) != NULL && dev_host_padded(d, a + 252, 8, false) == NULL);
  CHECK(dev_host_padded(d, a + 256, 1, false) == NULL);
  CHECK(b >= a + 512);   /* 256 padded bytes, then the 256-byte guard */
  CHECK(dev_host_padded(d, b + 40, 4, false) == NULL);   /* not padded */
  CHECK(dev_host_padded(d, z, 256, true) != NULL && dev_host(d, z, 1) == NULL);
  CHECK(dev_alloc(d, 40, 256, 3) == 0);   /* not a power of two */
  uint64_t m = dev_alloc_managed(d, 10, 256);
  CHECK(m && dev_host_padded(d, m + 10, 246, false) != NULL && dev_host_padded(d, m + 10, 247, false) == NULL);
  dev_destroy(d);
}

/* Host threads of a -j launch malloc and free at once: every thread's live
 * blocks are its own (no block is handed out twice). */
enum { HEAP_THREADS = 4, HEAP_ROUNDS = 2000 };
static Device *heap_dev;
static int heap_bad;
static void *heap_worker(void *arg) {
  uint64_t live[8] = {0};
  unsigned seed = (unsigned)(uintptr_t)arg;
  for (int k = 0; k < HEAP_ROUNDS; k++) {
    int i = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;
    if (live[i]) {
      uint32_t *p = dev_host_w(heap_dev, live[i], 4);
      if (!p || *p != (uint32_t)(live[i] ^ (uintptr_t)arg)) __atomic_store_n(&heap_bad, 1, __ATOMIC_RELAXED);
      if (dev_heap_free(heap_dev, live[i], NULL) != HEAP_OK) __atomic_store_n(&heap_bad, 1, __ATOMIC_RELAXED);
      live[i] = 0;
    } else {
      live[i] = dev_heap_malloc(heap_dev, 16 + (seed >> 20) % 200);
      uint32_t *p = live[i] ? dev_host_w(heap_dev, live[i], 4) : NULL;
      if (p) *p = (uint32_t)(live[i] ^ (uintptr_t)arg);
      else __atomic_store_n(&heap_bad, 1, __ATOMIC_RELAXED);
    }
  }
  for (int i = 0; i < 8; i++)
    if (live[i]) dev_heap_free(heap_dev, live[i], NULL);
  return NULL;
}

static void test_heap(void) {
  Device *d = dev_create((size_t)1 << 26);
  CHECK(d != NULL);
  if (!d) return;
  CHECK(!dev_heap_get(d, NULL, NULL) && dev_heap_malloc(d, 16) == 0);
  CHECK(dev_heap_open(d, 4096 - 3) == HEAP_OK);   /* rounded up to 16 */
  uint64_t base = 0, size = 0;
  CHECK(dev_heap_get(d, &base, &size) && size == 4096 && base != 0);
  CHECK(dev_heap_open(d, 1 << 20) == HEAP_OK && dev_heap_get(d, NULL, &size) && size == 4096);   /* fixed */
  CHECK(!dev_free(d, base));   /* not cudaFree's */
  uint64_t a = dev_heap_malloc(d, 1), b = dev_heap_malloc(d, 17), c = dev_heap_malloc(d, 0);
  CHECK(a == base && b == base + 16 && c == base + 48 && a % 16 == 0);
  CHECK(dev_host_w(d, b, 32) != NULL);
  uint64_t bytes = 0;
  CHECK(dev_heap_free(d, b, &bytes) == HEAP_OK && bytes == 32);
  CHECK(dev_heap_free(d, b, NULL) == HEAP_DOUBLE);
  CHECK(dev_heap_free(d, a + 8, NULL) == HEAP_NOT_BLOCK && dev_heap_free(d, a + 16, NULL) == HEAP_DOUBLE);
  CHECK(dev_heap_free(d, base + 4096, NULL) == HEAP_OUTSIDE && dev_heap_free(d, 0, NULL) == HEAP_OUTSIDE);
  CHECK(dev_heap_malloc(d, 4096) == 0);   /* a, c live: no room */
  CHECK(dev_heap_malloc(d, 4096 - 64) == base + 64);   /* the rest after c */
  CHECK(dev_heap_malloc(d, 32) == b);   /* wraps around to b's hole */
  CHECK(dev_heap_malloc(d, 16) == 0);   /* full */
  dev_destroy(d);

  /* several host threads */
  heap_dev = d = dev_create((size_t)1 << 26);
  CHECK(d && dev_heap_open(d, 1 << 20) == HEAP_OK);
  if (!d) return;
  pthread_t t[HEAP_THREADS];
  for (uintptr_t i = 0; i < HEAP_THREADS; i++) pthread_create(&t[i], NULL, heap_worker, (void *)(i + 1));
  for (int i = 0; i < HEAP_THREADS; i++) pthread_join(t[i], NULL);
  CHECK(!heap_bad);
  CHECK(dev_heap_get(d, &base, NULL) && dev_heap_malloc(d, 1 << 20) == base);   /* all freed: whole again */
  CHECK(dev_heap_malloc(d, 16) == 0);
  dev_destroy(d);

  /* the public setter: fixed once a launch made the heap */
  ptxvm_context *ctx = NULL;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  CHECK(ptxvm_set_malloc_heap(ctx, 1 << 16) == PTXVM_SUCCESS);
  CHECK(ptxvm_set_malloc_heap(NULL, 1) == PTXVM_ERROR_INVALID_VALUE);
  ptxvm_context_destroy(ctx);
}

/* initcheck's bitmap (dev_set_undef ...): runs of written bytes at odd
 * offsets and lengths, across whole bitmap bytes; the API marks only
 * ptxvm_mem_alloc memory, only when checking, and host copies write. */
static void test_undef(void) {
  Device *d = dev_create((size_t)1 << 30);
  CHECK(d != NULL);
  if (!d) return;
  uint64_t a = dev_alloc(d, 100, 256, 0), m = dev_alloc_managed(d, 64, 0);
  uint8_t *h = dev_host(d, a, 100);
  DevUndef u;
  CHECK(!dev_find_undef(d, h, 100, &u));   /* not tracked: written */
  CHECK(!dev_set_undef(d, m) && !dev_set_undef(d, a + 4));
  CHECK(dev_set_undef(d, a));
  CHECK(dev_find_undef(d, h, 100, &u) && u.start == a && u.size == 100 && u.lo == a && u.hi == a + 100);
  dev_set_written(d, h + 3, 30);   /* bytes 3..32 */
  CHECK(dev_find_undef(d, h, 3, &u) && u.lo == a && u.hi == a + 3);
  CHECK(!dev_find_undef(d, h + 3, 30, &u));
  CHECK(dev_find_undef(d, h + 30, 8, &u) && u.lo == a + 33 && u.hi == a + 38);
  dev_set_written(d, h + 90, 20);   /* clipped at the end */
  CHECK(!dev_find_undef(d, h + 90, 10, &u));
  CHECK(dev_find_undef(d, h + 88, 4, &u) && u.lo == a + 88 && u.hi == a + 90);
  dev_set_written(d, h, 100);
  CHECK(!dev_find_undef(d, h, 100, &u));
  CHECK(dev_free(d, a) && !dev_find_undef(d, h, 1, &u));
  dev_destroy(d);

  ptxvm_context *ctx;
  CHECK(ptxvm_context_create(&ctx) == PTXVM_SUCCESS);
  ptxvm_devptr p, q;
  CHECK(ptxvm_mem_alloc(ctx, 64, &p) == PTXVM_SUCCESS && ptxvm_mem_alloc_managed(ctx, 64, &q) == PTXVM_SUCCESS);
  CHECK(ptxvm_mem_set_uninitialized(ctx, p) == PTXVM_SUCCESS);   /* not checking: nothing */
  CHECK(ptxvm_mem_set_uninitialized(ctx, q) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_set_uninitialized(ctx, p + 8) == PTXVM_ERROR_INVALID_ADDRESS);
  CHECK(ptxvm_mem_set_uninitialized(NULL, p) == PTXVM_ERROR_INVALID_VALUE);
  CHECK(ptxvm_set_check(ctx, 1) == PTXVM_SUCCESS && ptxvm_mem_set_uninitialized(ctx, p) == PTXVM_SUCCESS);
  ptxvm_context_destroy(ctx);
}

int main(void) {
  test_alloc();
  test_padding();
  test_windows();
  test_launch_check();
  test_api_memory();
  test_placement();
  test_views();
  test_external();
  test_api_unified();
  test_heap();
  test_undef();
  return unit_report();
}
