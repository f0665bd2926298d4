/* heap.c: the device heap of device-side malloc and free (mem.h dev_heap_*).
 *
 * CUDA gives each context one heap of fixed size (the malloc heap limit,
 * CU_LIMIT_MALLOC_HEAP_SIZE, 8 MiB by default) for the malloc and free
 * system calls of kernels. Here it is one allocation of the arena, made
 * when the first kernel that can call them is launched (dev_heap_open),
 * so its blocks are global memory like any other: the same unified
 * addresses, the same checks, the race checker and the memory-access hook
 * see their accesses as .global. The allocation table is not changed by
 * malloc or free (it takes no lock while kernels run); an access past a
 * block's end but inside the heap is therefore not a fault, as on a GPU.
 *
 * The blocks are kept on the host side, out of the kernels' reach, as two
 * bitmaps of GRANULE-byte granules: `used` (the granule belongs to a live
 * block) and `head` (a live block starts there), and `freed` (a block
 * started there and was freed since), which tells a double free from a
 * free of an address malloc never returned. malloc takes the first run of
 * free granules from a rover on (next fit) and wraps around once; a block
 * is every used granule from its head up to the next head or free granule.
 * One mutex per heap: the clusters of a launch run on several host threads
 * (ptxvm_set_jobs) and call malloc and free concurrently. */
#include <pthread.h>
#include <stdlib.h>

#include "mem.h"

enum { GRANULE = 16 };   /* CUDA: malloc's results are 16-byte aligned */

struct DevHeap {
  uint64_t base, size;      /* the heap's allocation (size: a multiple of GRANULE) */
  uint64_t n;               /* granules */
  uint64_t *used, *head, *freed;
  uint64_t rover;           /* next-fit: where the next search starts */
  pthread_mutex_t lock;
};

static bool bit(const uint64_t *m, uint64_t i) { return m[i >> 6] >> (i & 63) & 1; }
static void set(uint64_t *m, uint64_t i) { m[i >> 6] |= 1ull << (i & 63); }
static void clear(uint64_t *m, uint64_t i) { m[i >> 6] &= ~(1ull << (i & 63)); }

static uint64_t round_size(uint64_t size) { return (size + GRANULE - 1) & ~(uint64_t)(GRANULE - 1); }

int dev_heap_open(Device *d, uint64_t size) {
  DevHeap **slot = dev_heap_slot(d);
  if (size > dev_limit(d)) return HEAP_NODEVICE;
  size = round_size(size);
  if (*slot) return HEAP_OK;   /* fixed at its first opening (CUDA) */
  DevHeap *h = calloc(1, sizeof *h);
  if (!h) return HEAP_NOMEM;
  pthread_mutex_init(&h->lock, NULL);
  h->size = size;
  h->n = size / GRANULE;
  size_t words = (size_t)((h->n + 63) / 64) + 1;
  h->used = calloc(words, 8), h->head = calloc(words, 8), h->freed = calloc(words, 8);
  if (!h->used || !h->head || !h->freed) {
    dev_heap_destroy(h);
    return HEAP_NOMEM;
  }
  /* a heap of 0 bytes is allowed: every malloc returns NULL */
  h->base = size ? dev_alloc(d, size, 256, 0) : 0;
  if (size && !h->base) {
    dev_heap_destroy(h);
    return HEAP_NODEVICE;
  }
  *slot = h;
  return HEAP_OK;
}

void dev_heap_destroy(DevHeap *h) {
  if (!h) return;
  pthread_mutex_destroy(&h->lock);
  free(h->used);
  free(h->head);
  free(h->freed);
  free(h);
}

bool dev_heap_get(Device *d, uint64_t *base, uint64_t *size) {
  const DevHeap *h = *dev_heap_slot(d);
  if (base) *base = h ? h->base : 0;
  if (size) *size = h ? h->size : 0;
  return h != NULL;
}

/* The first run of g free granules in [from, to), or UINT64_MAX. */
static uint64_t find_run(const DevHeap *h, uint64_t from, uint64_t to, uint64_t g) {
  uint64_t start = from;
  for (uint64_t i = from; i < to;) {
    uint64_t w = h->used[i >> 6] >> (i & 63);
    unsigned room = 64 - (unsigned)(i & 63);
    if (w & 1) {   /* skip the used granules at i */
      unsigned ones = ~w ? (unsigned)__builtin_ctzll(~w) : room;   /* ~w == 0: a whole used word */
      i += ones < room ? ones : room;
      start = i;
      continue;
    }
    unsigned zeros = w ? (unsigned)__builtin_ctzll(w) : room;
    i += zeros;
    uint64_t end = i < to ? i : to;
    if (end - start >= g) return start;
  }
  return UINT64_MAX;
}

uint64_t dev_heap_malloc(Device *d, uint64_t size) {
  DevHeap *h = *dev_heap_slot(d);
  if (!h || !h->base) return 0;
  /* malloc(0): a block of one granule, so each call returns a distinct
     pointer that free accepts */
  uint64_t g = size ? (size - 1) / GRANULE + 1 : 1;
  if (g > h->n) return 0;
  pthread_mutex_lock(&h->lock);
  uint64_t at = find_run(h, h->rover, h->n, g);
  if (at == UINT64_MAX) at = find_run(h, 0, h->n, g);
  uint64_t addr = 0;
  if (at != UINT64_MAX) {
    for (uint64_t i = at; i < at + g; i++) set(h->used, i), clear(h->freed, i);
    set(h->head, at);
    h->rover = at + g < h->n ? at + g : 0;
    addr = h->base + at * GRANULE;
  }
  pthread_mutex_unlock(&h->lock);
  return addr;
}

int dev_heap_free(Device *d, uint64_t addr, uint64_t *bytes) {
  DevHeap *h = *dev_heap_slot(d);
  if (!h || addr - h->base >= h->size) return HEAP_OUTSIDE;
  uint64_t off = addr - h->base;
  if (off % GRANULE) return HEAP_NOT_BLOCK;
  uint64_t g = off / GRANULE;
  pthread_mutex_lock(&h->lock);
  int r = HEAP_OK;
  if (!bit(h->head, g)) {
    r = bit(h->freed, g) ? HEAP_DOUBLE : HEAP_NOT_BLOCK;
  } else {
    uint64_t i = g;
    clear(h->head, g);
    do clear(h->used, i++);
    while (i < h->n && bit(h->used, i) && !bit(h->head, i));
    set(h->freed, g);
    if (bytes) *bytes = (i - g) * GRANULE;
  }
  pthread_mutex_unlock(&h->lock);
  return r;
}
