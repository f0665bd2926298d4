/* device.c: the device arena and its allocator (mem.h).
 *
 * The arena is one range of host address space reserved with mmap
 * (PROT_NONE, nothing committed) and made readable and writable in steps of
 * COMMIT_STEP as allocations reach further into it, so a large reservation
 * costs nothing until it is used. Device address A lives at host address
 * base + (A - GLOBAL_BASE).
 *
 * The allocator keeps the live allocations in an array sorted by address,
 * each followed by GUARD unaddressable bytes, all below the device's limit
 * (dev_set_limit; at most the reservation).
 * Memory is zero when allocated without being written here: pages never
 * touched are zero already (the arena's high-water mark, `touched`, says
 * which), so only reused bytes are cleared, and dev_free hands the whole
 * pages of a freed allocation back to the host (MADV_DONTNEED, after which
 * they read as zero), so that device memory costs the host what holds data.
 * dev_alloc takes the first gap between neighbours (or the end) that fits at
 * the requested alignment; dev_free removes the entry. dev_host, on every
 * global load and store, finds the allocation holding an address: first the
 * one that answered last time (a relaxed atomic index, since CTAs run on
 * several host threads and may race on it harmlessly), else a binary search.
 * Allocating and freeing happen between launches, never during one, so the
 * table itself needs no lock while kernels read it. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

enum { COMMIT_STEP = 1 << 21 };   /* 2 MiB */
/* Unaddressable bytes after each allocation, so that an access running
 * a little past a buffer's end faults against that buffer instead of
 * landing in its neighbour (a module's small .global variables sit right
 * after one another otherwise). 256: cudaMalloc's alignment. */
enum { GUARD = 256 };

typedef struct Alloc {
  uint64_t off;     /* offset from the arena's start */
  uint64_t size;    /* requested bytes */
  uint64_t span;    /* bytes reserved: size (at least 1) and the GUARD */
  bool readonly;    /* to kernels (dev_protect) */
} Alloc;

struct Device {
  uint8_t *base;
  uint64_t reserved;     /* bytes of address space */
  uint64_t committed;    /* bytes readable and writable, from base */
  uint64_t limit;        /* allocations end below this (<= reserved) */
  uint64_t touched;      /* bytes from base that may be nonzero (high-water mark) */
  uint64_t used;         /* bytes the live allocations take (spans) */
  Alloc *allocs;         /* live allocations, sorted by off */
  int n, cap;
  atomic_int last;       /* index of the allocation dev_host found last */
};

Device *dev_create(size_t max_bytes) {
  Device *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  max_bytes = (max_bytes + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
  if (max_bytes == 0) max_bytes = COMMIT_STEP;
  /* Fall back to smaller reservations where address space is limited. */
  for (; max_bytes >= COMMIT_STEP; max_bytes /= 2) {
    void *p = mmap(NULL, max_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p != MAP_FAILED) {
      d->base = p;
      d->reserved = d->limit = max_bytes;
      return d;
    }
  }
  free(d);
  return NULL;
}

void dev_destroy(Device *d) {
  if (!d) return;
  munmap(d->base, d->reserved);
  free(d->allocs);
  free(d);
}

/* Makes [0, end) of the arena usable. */
static bool commit_to(Device *d, uint64_t end) {
  if (end <= d->committed) return true;
  uint64_t to = (end + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
  if (to > d->reserved) to = d->reserved;
  if (mprotect(d->base + d->committed, to - d->committed, PROT_READ | PROT_WRITE)) return false;
  d->committed = to;
  return true;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

static uint64_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (uint64_t)p : 4096;
}

/* Gives the whole pages inside [from, to) back to the host; they read as
 * zero afterwards. Returns the page-aligned part released ([*lo, *hi)). */
static void release(Device *d, uint64_t from, uint64_t to, uint64_t *lo, uint64_t *hi) {
  uint64_t pg = page_size();
  *lo = align_up(from, pg);
  *hi = to & ~(pg - 1);
  if (*lo >= *hi || madvise(d->base + *lo, *hi - *lo, MADV_DONTNEED)) *lo = *hi = to;
}

/* Zeroes [from, to) of the arena where it may hold data (below touched). */
static void zero_range(Device *d, uint64_t from, uint64_t to) {
  if (to > d->touched) to = d->touched;
  if (from >= to) return;
  uint64_t lo, hi;
  release(d, from, to, &lo, &hi);
  memset(d->base + from, 0, lo - from);
  memset(d->base + hi, 0, to - hi);
}

/* First-fit: the index at which the new allocation goes and its offset. */
static bool find_gap(const Device *d, uint64_t span, uint64_t align, int *at, uint64_t *off) {
  uint64_t from = 0;
  for (int i = 0; i <= d->n; i++) {
    uint64_t o = align_up(from, align);
    uint64_t limit = i < d->n ? d->allocs[i].off : d->limit;
    if (o >= from && o <= limit && limit - o >= span) {
      *at = i;
      *off = o;
      return true;
    }
    if (i < d->n) from = d->allocs[i].off + d->allocs[i].span;
  }
  return false;
}

uint64_t dev_alloc(Device *d, uint64_t size, uint64_t align) {
  if (!d || align == 0 || (align & (align - 1))) return 0;
  if (size > d->limit) return 0;
  uint64_t span = (size ? size : 1) + GUARD;
  int at;
  uint64_t off;
  if (!find_gap(d, span, align, &at, &off)) return 0;
  if (!commit_to(d, off + span)) return 0;
  if (d->n == d->cap) {
    int nc = d->cap ? 2 * d->cap : 64;
    Alloc *na = realloc(d->allocs, (size_t)nc * sizeof *na);
    if (!na) return 0;
    d->allocs = na;
    d->cap = nc;
  }
  memmove(&d->allocs[at + 1], &d->allocs[at], (size_t)(d->n - at) * sizeof *d->allocs);
  d->allocs[at] = (Alloc){off, size, span, false};
  d->n++;
  d->used += span;
  zero_range(d, off, off + span);
  if (off + span > d->touched) d->touched = off + span;
  return GLOBAL_BASE + off;
}

/* Index of the allocation containing offset off, or -1. */
static int lookup(Device *d, uint64_t off) {
  int last = atomic_load_explicit(&d->last, memory_order_relaxed);
  if (last < d->n && off - d->allocs[last].off < d->allocs[last].span) return last;
  int lo = 0, hi = d->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const Alloc *a = &d->allocs[mid];
    if (off < a->off) hi = mid - 1;
    else if (off - a->off >= a->span) lo = mid + 1;
    else {
      atomic_store_explicit(&d->last, mid, memory_order_relaxed);
      return mid;
    }
  }
  return -1;
}

/* Index of the allocation starting exactly at addr, or -1. */
static int lookup_start(Device *d, uint64_t addr) {
  if (!d || addr < GLOBAL_BASE) return -1;
  int i = lookup(d, addr - GLOBAL_BASE);
  return i >= 0 && d->allocs[i].off == addr - GLOBAL_BASE ? i : -1;
}

bool dev_free(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  if (i < 0) return false;
  uint64_t lo, hi;
  release(d, d->allocs[i].off, d->allocs[i].off + d->allocs[i].span, &lo, &hi);
  d->used -= d->allocs[i].span;
  memmove(&d->allocs[i], &d->allocs[i + 1], (size_t)(d->n - i - 1) * sizeof *d->allocs);
  d->n--;
  atomic_store_explicit(&d->last, 0, memory_order_relaxed);
  return true;
}

/* [addr, addr+size) inside one live allocation, writable if `write`. */
static void *host_range(Device *d, uint64_t addr, uint64_t size, bool write) {
  if (!d || addr < GLOBAL_BASE) return NULL;
  uint64_t off = addr - GLOBAL_BASE;
  int i = lookup(d, off);
  if (i < 0) return NULL;
  const Alloc *a = &d->allocs[i];
  if (size > a->size || off - a->off > a->size - size || (write && a->readonly)) return NULL;
  return d->base + off;
}

void *dev_host(Device *d, uint64_t addr, uint64_t size) { return host_range(d, addr, size, false); }
void *dev_host_w(Device *d, uint64_t addr, uint64_t size) { return host_range(d, addr, size, true); }

bool dev_set_limit(Device *d, uint64_t bytes) {
  if (bytes > d->reserved) return false;
  d->limit = bytes;
  return true;
}

uint64_t dev_limit(const Device *d) { return d->limit; }
uint64_t dev_reserved(const Device *d) { return d->reserved; }
uint64_t dev_used(const Device *d) { return d->used; }

void dev_protect(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  if (i >= 0) d->allocs[i].readonly = true;
}

uint64_t dev_alloc_size(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  return i < 0 ? 0 : d->allocs[i].size;
}

bool dev_find(Device *d, uint64_t addr, uint64_t *start, uint64_t *size, bool *readonly) {
  if (!d || addr < GLOBAL_BASE) return false;
  int i = lookup(d, addr - GLOBAL_BASE);
  if (i < 0) return false;
  *start = GLOBAL_BASE + d->allocs[i].off;
  *size = d->allocs[i].size;
  if (readonly) *readonly = d->allocs[i].readonly;
  return true;
}
