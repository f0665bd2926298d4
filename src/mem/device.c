/* device.c: the device arena, its allocator and the allocation table (mem.h).
 *
 * Address space. At the first dev_create the shared, local and param
 * windows (mem.h) are reserved PROT_NONE with MAP_FIXED_NOREPLACE for the
 * life of the process, so no host memory is ever placed in them (a window
 * already taken, by a sanitizer's shadow say, stays taken; dev_register
 * refuses ranges there). The arena is then reserved at ARENA_FIXED, also
 * with MAP_FIXED_NOREPLACE, or where the host puts it when that range is
 * taken (by another context's arena, a sanitizer, the host program); a
 * device address is the address of the arena's bytes in that reservation,
 * the "device view".
 *
 * Two views. A buffer of cudaMalloc faults when host code dereferences it;
 * so that ptxvm's does too, the arena is a memfd mapped twice: the device
 * view stays PROT_NONE except for managed allocations, and a second mapping
 * of the same pages elsewhere, the "kernel view", is what kernels and
 * copies reach (host pointer = device address + delta, the same one add the
 * translation always cost). Managed pages are readable and writable in both
 * views, so the host and kernels see the same bytes at the same address;
 * managed allocations take whole pages, so that no device buffer shares a
 * page with one. Where a memfd cannot be had (or mapped twice) the arena is
 * one private mapping, delta 0, and device buffers are readable by host
 * code as well (dev_device_hidden says which).
 *
 * Commitment. The kernel view is made readable and writable in steps of
 * COMMIT_STEP as allocations reach further into it, so a large reservation
 * costs nothing until used; pages never touched are zero (the high-water
 * mark `touched` says which may not be), only reused bytes are cleared, and
 * dev_free hands a freed allocation's whole pages back to the host (a hole
 * punched in the memfd, or MADV_DONTNEED), after which they read as zero.
 *
 * The table. Live allocations are kept in one array sorted by address:
 * the arena's (device and managed, each followed by GUARD unaddressable
 * bytes, all below the device's limit, dev_set_limit) and the external
 * ranges (host memory from dev_alloc_host, whole pages; ranges of the host
 * program from dev_register), which lie outside the arena. Each entry holds
 * the delta from its device address to its host pointer (0 for external
 * ranges and the single-view arena). dev_alloc takes the first gap of the
 * arena that fits at the requested alignment. dev_host, on every global load
 * and store, finds the entry holding an address: first the one that
 * answered last time (a relaxed atomic index, since CTAs run on several host
 * threads and may race on it harmlessly), else a binary search. Allocating
 * and freeing happen between launches, never during one, so the table needs
 * no lock while kernels read it. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
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
  uint64_t start;   /* device address */
  uint64_t size;    /* requested bytes */
  uint64_t reach;   /* bytes kernels may access through dev_host_padded: size,
                       or size rounded up to its padding (dev_alloc) */
  uint64_t span;    /* bytes it answers for: reach (at least 1) and its guard */
  uint64_t delta;   /* host pointer - device address (mod 2^64) */
  uint64_t id;
  unsigned user;
  MemKind kind;
  bool readonly;    /* to kernels (dev_protect, a read-only registration) */
  bool owned;       /* ptxvm's, not the user's to free (dev_own) */
  uint8_t *undef;   /* initcheck (dev_set_undef): bit i set while byte i was
                       never written; NULL: every byte counts as written */
} Alloc;

struct Device {
  uint64_t base;         /* device address of the arena (device view) */
  uint8_t *kview;        /* the kernel view: host pointer of base */
  int fd;                /* the memfd of both views, or -1: one private view */
  uint64_t reserved;     /* bytes of address space */
  uint64_t committed;    /* bytes readable and writable in the kernel view */
  uint64_t limit;        /* arena allocations end below this (<= reserved) */
  uint64_t touched;      /* bytes from base that may be nonzero (high-water mark) */
  uint64_t used;         /* bytes the live arena allocations take (spans) */
  Alloc *allocs;         /* live allocations, sorted by start */
  int n, cap;
  int fit_n;             /* find_gap's known prefix: the first fit_n allocations */
  uint64_t fit_gap;      /* bound the gaps among them and before each (bytes) */
  atomic_int last;       /* index of the allocation dev_host found last */
  DevHeap *heap;         /* device malloc's (heap.c), or NULL */
  int nundef;            /* allocations with an undef bitmap (0: initcheck
                            has nothing to look up) */
};

static atomic_uint_least64_t next_id = 1;

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

static uint64_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (uint64_t)p : 4096;
}

static bool overlaps_window(uint64_t lo, uint64_t hi) {
  for (uint64_t w = PARAM_WINDOW; w <= SHARED_WINDOW; w += WINDOW_STRIDE)
    if (lo < w + WINDOW_SIZE && w < hi) return true;
  return false;
}

/* ---- reserving address space ---- */

/* A reservation at `at` (mem.h MEM_NOREPLACE); NULL, or where the host
 * put it when it took the request as a hint. */
static void *map_fixed(uint64_t at, uint64_t bytes, int flags, int fd) {
  void *p = mmap((void *)(uintptr_t)at, bytes, PROT_NONE, flags | MEM_NOREPLACE, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void reserve_windows(void) {
  for (uint64_t w = PARAM_WINDOW; w <= SHARED_WINDOW; w += WINDOW_STRIDE) {
    void *p = map_fixed(w, WINDOW_SIZE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
    if (p && (uintptr_t)p != w) munmap(p, WINDOW_SIZE);   /* a kernel that took it as a hint */
  }
}

/* The device view: at ARENA_FIXED if free, else anywhere outside the
 * windows; NULL if neither. */
static void *place(uint64_t bytes, int flags, int fd) {
  void *p = map_fixed(ARENA_FIXED, bytes, flags, fd);
  if (!p) {
    p = mmap(NULL, bytes, PROT_NONE, flags, fd, 0);
    if (p == MAP_FAILED) return NULL;
  }
  if (overlaps_window((uintptr_t)p, (uintptr_t)p + bytes)) {
    munmap(p, bytes);
    return NULL;
  }
  return p;
}

/* A memfd of `bytes`, or -1. */
static int arena_fd(uint64_t bytes) {
  int fd = memfd_create("ptxvm-device", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, (off_t)bytes)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* Maps the arena's views (two over a memfd, else one private one). */
static bool map_arena(Device *d, uint64_t bytes) {
  int fd = arena_fd(bytes);
  for (;;) {
    int flags = (fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS) | MAP_NORESERVE;
    void *v = place(bytes, flags, fd);
    if (v && fd < 0) {
      d->base = (uintptr_t)v, d->kview = v, d->fd = -1;
      return true;
    }
    if (v) {
      void *k = mmap(NULL, bytes, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0);
      if (k != MAP_FAILED) {
        d->base = (uintptr_t)v, d->kview = k, d->fd = fd;
        return true;
      }
      munmap(v, bytes);
    }
    if (fd < 0) return false;
    close(fd);
    fd = -1;
  }
}

Device *dev_create(size_t max_bytes) {
  static pthread_once_t windows = PTHREAD_ONCE_INIT;
  pthread_once(&windows, reserve_windows);
  Device *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  max_bytes = (max_bytes + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
  if (max_bytes == 0) max_bytes = COMMIT_STEP;
  /* Fall back to smaller reservations where address space is limited. */
  for (; max_bytes >= COMMIT_STEP; max_bytes /= 2)
    if (map_arena(d, max_bytes)) {
      d->reserved = d->limit = max_bytes;
      return d;
    }
  free(d);
  return NULL;
}

void dev_destroy(Device *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++)
    if (d->allocs[i].kind == MK_HOST)
      munmap((void *)(uintptr_t)d->allocs[i].start, d->allocs[i].span);
  for (int i = 0; i < d->n; i++) free(d->allocs[i].undef);
  munmap((void *)(uintptr_t)d->base, d->reserved);
  if (d->fd >= 0) {
    munmap(d->kview, d->reserved);
    close(d->fd);
  }
  dev_heap_destroy(d->heap);
  free(d->allocs);
  free(d);
}

DevHeap **dev_heap_slot(Device *d) { return &d->heap; }

bool dev_device_hidden(const Device *d) { return d->fd >= 0; }

/* ---- the arena ---- */

/* Makes [0, end) of the arena usable by kernels. */
static bool commit_to(Device *d, uint64_t end) {
  if (end <= d->committed) return true;
  uint64_t to = (end + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
  if (to > d->reserved) to = d->reserved;
  if (mprotect(d->kview + d->committed, to - d->committed, PROT_READ | PROT_WRITE)) return false;
  d->committed = to;
  return true;
}

/* Gives the whole pages inside [from, to) of the arena back to the host;
 * they read as zero afterwards. Returns the page-aligned part released
 * ([*lo, *hi)). */
static void release(Device *d, uint64_t from, uint64_t to, uint64_t *lo, uint64_t *hi) {
  uint64_t pg = page_size();
  *lo = align_up(from, pg);
  *hi = to & ~(pg - 1);
  bool ok = *lo < *hi &&
            (d->fd >= 0 ? !fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)*lo,
                                     (off_t)(*hi - *lo))
                        : !madvise(d->kview + *lo, *hi - *lo, MADV_DONTNEED));
  if (!ok) *lo = *hi = to;
}

/* Zeroes [from, to) of the arena where it may hold data (below touched). */
static void zero_range(Device *d, uint64_t from, uint64_t to) {
  if (to > d->touched) to = d->touched;
  if (from >= to) return;
  uint64_t lo, hi;
  release(d, from, to, &lo, &hi);
  memset(d->kview + from, 0, lo - from);
  memset(d->kview + hi, 0, to - hi);
}

/* Index of the first allocation starting at or after addr. */
static int lower_bound(const Device *d, uint64_t addr) {
  int lo = 0, hi = d->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (d->allocs[mid].start < addr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* First-fit among the arena's allocations: the offset of the new one.
 * A module's thousands of variables made the scan quadratic, so the gaps
 * scanned are remembered (Device.fit_n, fit_gap): a span larger than every
 * gap of that prefix is looked for after it. insert keeps the prefix (a
 * gap split in two only shrinks), drop forgets it. */
static bool find_gap(Device *d, uint64_t span, uint64_t align, uint64_t *off) {
  int b = lower_bound(d, d->base), i = b;
  uint64_t from = 0;
  if (d->fit_n && span > d->fit_gap) {
    i = b + d->fit_n;
    from = d->allocs[i - 1].start - d->base + d->allocs[i - 1].span;
  }
  for (;; i++) {
    bool inside = i < d->n && d->allocs[i].start - d->base < d->reserved;
    uint64_t o = align_up(from, align);
    uint64_t limit = inside && d->allocs[i].start - d->base < d->limit ? d->allocs[i].start - d->base
                                                                        : d->limit;
    if (o >= from && o <= limit && limit - o >= span) {
      *off = o;
      return true;
    }
    if (!inside) return false;
    if (i == b + d->fit_n) {   /* the gap before allocs[i] joins the prefix */
      uint64_t gap = d->allocs[i].start - d->base - from;
      if (gap > d->fit_gap) d->fit_gap = gap;
      d->fit_n++;
    }
    from = d->allocs[i].start - d->base + d->allocs[i].span;
  }
}

/* Whether allocs[at] is (or goes) among find_gap's known prefix. */
static bool in_fit_prefix(const Device *d, int at) {
  int b = lower_bound(d, d->base);
  return at >= b && at < b + d->fit_n;
}

/* Puts a into the table at its place; false when out of memory. */
static bool insert(Device *d, Alloc a) {
  if (d->n == d->cap) {
    int nc = d->cap ? 2 * d->cap : 64;
    Alloc *na = realloc(d->allocs, (size_t)nc * sizeof *na);
    if (!na) return false;
    d->allocs = na;
    d->cap = nc;
  }
  int at = lower_bound(d, a.start);
  if (in_fit_prefix(d, at) && a.start - d->base < d->reserved) d->fit_n++;
  memmove(&d->allocs[at + 1], &d->allocs[at], (size_t)(d->n - at) * sizeof *d->allocs);
  a.id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
  d->allocs[at] = a;
  d->n++;
  return true;
}

static uint64_t arena_alloc(Device *d, uint64_t span, uint64_t size, uint64_t reach, uint64_t align,
                            MemKind kind) {
  uint64_t off;
  if (!find_gap(d, span, align, &off) || !commit_to(d, off + span)) return 0;
  uint64_t at = d->base + off;
  if (kind == MK_MANAGED && d->fd >= 0 &&
      mprotect((void *)(uintptr_t)at, span, PROT_READ | PROT_WRITE))
    return 0;
  Alloc a = {at, size, reach, span, (uintptr_t)d->kview - d->base, 0, 0, kind, false, false, NULL};
  if (!insert(d, a)) {
    if (kind == MK_MANAGED && d->fd >= 0) mprotect((void *)(uintptr_t)at, span, PROT_NONE);
    return 0;
  }
  d->used += span;
  zero_range(d, off, off + span);
  if (off + span > d->touched) d->touched = off + span;
  return at;
}

/* The bytes kernels may reach of an allocation of size bytes padded to pad. */
static uint64_t padded(uint64_t size, uint64_t pad) { return pad ? align_up(size ? size : 1, pad) : size; }

uint64_t dev_alloc(Device *d, uint64_t size, uint64_t align, uint64_t pad) {
  if (!d || align == 0 || (align & (align - 1)) || (pad & (pad - 1)) || size > d->limit) return 0;
  uint64_t reach = padded(size, pad);
  return arena_alloc(d, (reach ? reach : 1) + GUARD, size, reach, align, MK_DEVICE);
}

uint64_t dev_alloc_managed(Device *d, uint64_t size, uint64_t pad) {
  uint64_t pg = page_size();
  if (!d || (pad & (pad - 1)) || size > d->limit) return 0;
  uint64_t reach = padded(size, pad);
  return arena_alloc(d, align_up((reach ? reach : 1) + GUARD, pg), size, reach, pg, MK_MANAGED);
}

/* ---- external ranges ---- */

void *dev_alloc_host(Device *d, uint64_t size) {
  uint64_t bytes = align_up(size ? size : 1, page_size());
  if (!d || bytes < size) return NULL;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  Alloc a = {(uintptr_t)p, size, size, bytes, 0, 0, 0, MK_HOST, false, false, NULL};
  if (overlaps_window(a.start, a.start + bytes) || !insert(d, a)) {
    munmap(p, bytes);
    return NULL;
  }
  return p;
}

/* Whether the host's mappings cover [lo, hi), readable (and writable if
 * `write`), as /proc/self/maps lists them (in address order); true when
 * that cannot be read. */
static bool host_mapped(uint64_t lo, uint64_t hi, bool write) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return true;
  char *line = NULL;
  size_t cap = 0;
  uint64_t at = lo;
  while (at < hi && getline(&line, &cap, f) > 0) {
    unsigned long long a, b;
    char perm[5];
    if (sscanf(line, "%llx-%llx %4s", &a, &b, perm) != 3 || b <= at) continue;
    if (a > at || perm[0] != 'r' || (write && perm[1] != 'w')) break;
    at = b;
  }
  free(line);
  fclose(f);
  return at >= hi;
}

int dev_register(Device *d, void *p, uint64_t size, bool readonly) {
  uint64_t lo = (uintptr_t)p, hi = lo + size;
  if (!d || !p || !size || hi < lo) return REG_EMPTY;
  if (overlaps_window(lo, hi)) return REG_WINDOW;
  int i = lower_bound(d, lo);
  if ((i > 0 && d->allocs[i - 1].start + d->allocs[i - 1].span > lo) ||
      (i < d->n && d->allocs[i].start < hi) ||
      (lo < d->base + d->reserved && d->base < hi) ||
      (lo < (uintptr_t)d->kview + d->reserved && (uintptr_t)d->kview < hi))
    return REG_OVERLAP;
  if (!host_mapped(lo, hi, !readonly)) return REG_UNMAPPED;
  Alloc a = {lo, size, size, size, 0, 0, 0, MK_REGISTERED, readonly, false, NULL};
  return insert(d, a) ? REG_OK : REG_NOMEM;
}

/* ---- lookups ---- */

/* Index of the allocation whose span holds addr, or -1. */
static int lookup(Device *d, uint64_t addr) {
  int last = atomic_load_explicit(&d->last, memory_order_relaxed);
  if (last < d->n && addr - d->allocs[last].start < d->allocs[last].span) return last;
  int lo = 0, hi = d->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const Alloc *a = &d->allocs[mid];
    if (addr < a->start) hi = mid - 1;
    else if (addr - a->start >= a->span) lo = mid + 1;
    else {
      atomic_store_explicit(&d->last, mid, memory_order_relaxed);
      return mid;
    }
  }
  return -1;
}

/* Index of the allocation starting exactly at addr, or -1. */
static int lookup_start(Device *d, uint64_t addr) {
  if (!d) return -1;
  int i = lookup(d, addr);
  return i >= 0 && d->allocs[i].start == addr ? i : -1;
}

static void drop(Device *d, int i) {
  if (d->allocs[i].undef) d->nundef--;
  free(d->allocs[i].undef);
  if (in_fit_prefix(d, i)) d->fit_n = 0, d->fit_gap = 0;   /* two gaps merge */
  memmove(&d->allocs[i], &d->allocs[i + 1], (size_t)(d->n - i - 1) * sizeof *d->allocs);
  d->n--;
  atomic_store_explicit(&d->last, 0, memory_order_relaxed);
}

bool dev_free(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  uint64_t heap;
  if (i < 0 || (dev_heap_get(d, &heap, NULL) && heap == addr)) return false;
  Alloc *a = &d->allocs[i];
  if (a->kind == MK_REGISTERED) return false;
  if (a->kind == MK_HOST) {
    munmap((void *)(uintptr_t)a->start, a->span);
  } else {
    uint64_t lo, hi, off = a->start - d->base;
    release(d, off, off + a->span, &lo, &hi);
    if (a->kind == MK_MANAGED && d->fd >= 0) mprotect((void *)(uintptr_t)a->start, a->span, PROT_NONE);
    d->used -= a->span;
  }
  drop(d, i);
  return true;
}

void dev_own(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  if (i >= 0) d->allocs[i].owned = true;
}

bool dev_free_user(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  return i >= 0 && !d->allocs[i].owned && dev_free(d, addr);
}

bool dev_unregister(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  if (i < 0 || d->allocs[i].kind != MK_REGISTERED) return false;
  drop(d, i);
  return true;
}

/* [addr, addr+size) inside the first bytes of one live allocation (its
 * size, or its reach if `pad`), writable if `write`. */
static void *host_range(Device *d, uint64_t addr, uint64_t size, bool write, bool pad) {
  if (!d) return NULL;
  int i = lookup(d, addr);
  if (i < 0) return NULL;
  const Alloc *a = &d->allocs[i];
  uint64_t n = pad ? a->reach : a->size;
  if (size > n || addr - a->start > n - size || (write && a->readonly)) return NULL;
  return (void *)(uintptr_t)(addr + a->delta);
}

void *dev_host(Device *d, uint64_t addr, uint64_t size) { return host_range(d, addr, size, false, false); }
void *dev_host_w(Device *d, uint64_t addr, uint64_t size) { return host_range(d, addr, size, true, false); }
void *dev_host_padded(Device *d, uint64_t addr, uint64_t size, bool write) {
  return host_range(d, addr, size, write, true);
}

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

bool dev_set_user(Device *d, uint64_t addr, unsigned user) {
  int i = lookup_start(d, addr);
  if (i >= 0) d->allocs[i].user = user;
  return i >= 0;
}

uint64_t dev_alloc_size(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  return i < 0 ? 0 : d->allocs[i].size;
}

bool dev_find(Device *d, uint64_t addr, uint64_t *start, uint64_t *size, bool *readonly) {
  int i = d ? lookup(d, addr) : -1;
  if (i < 0) return false;
  *start = d->allocs[i].start;
  *size = d->allocs[i].size;
  if (readonly) *readonly = d->allocs[i].readonly;
  return true;
}

bool dev_range(Device *d, uint64_t addr, DevRange *out) {
  int i = d ? lookup(d, addr) : -1;
  if (i < 0) return false;
  const Alloc *a = &d->allocs[i];
  if (addr - a->start >= (a->size ? a->size : 1)) return false;
  *out = (DevRange){a->start, a->size, a->kind, a->readonly, a->id, a->user};
  return true;
}

/* ---- initcheck: bytes never written (issue 17) ----
 * Only allocations given a bitmap by dev_set_undef are tracked; the
 * lookups below go by host pointer (what a kernel's access and a host copy
 * both have) over those few allocations, and return at once when there are
 * none. Called between launches by the host, and during a checked launch
 * by its one host thread. */

bool dev_set_undef(Device *d, uint64_t addr) {
  int i = lookup_start(d, addr);
  if (i < 0 || d->allocs[i].kind != MK_DEVICE) return false;
  Alloc *a = &d->allocs[i];
  size_t nb = (size_t)(a->size + 7) / 8;
  uint8_t *m = a->undef ? a->undef : malloc(nb ? nb : 1);
  if (!m) return false;
  memset(m, 0xff, nb);
  if (!a->undef) d->nundef++;
  a->undef = m;
  return true;
}

bool dev_tracks_undef(const Device *d) { return d && d->nundef > 0; }

/* The tracked allocation whose bytes hold host pointer p, or NULL. */
static Alloc *undef_of(Device *d, uintptr_t p) {
  for (int i = 0; i < d->n; i++) {
    Alloc *a = &d->allocs[i];
    if (a->undef && p - (uintptr_t)(a->start + a->delta) < a->size) return a;
  }
  return NULL;
}

void dev_set_written(Device *d, const void *host, uint64_t n) {
  if (!d || !d->nundef) return;
  for (uintptr_t p = (uintptr_t)host, e = p + n; p < e;) {
    Alloc *a = undef_of(d, p);
    if (!a) { p++; continue; }   /* never in practice: one allocation per access */
    uint64_t o = p - (uintptr_t)(a->start + a->delta), end = o + (e - p);
    if (end > a->size) end = a->size;
    for (; o < end && (o & 7); o++) a->undef[o / 8] &= (uint8_t)~(1u << (o & 7));
    if (end - o >= 8) { memset(a->undef + o / 8, 0, (size_t)((end - o) / 8)); o += (end - o) & ~(uint64_t)7; }
    for (; o < end; o++) a->undef[o / 8] &= (uint8_t)~(1u << (o & 7));
    p = (uintptr_t)(a->start + a->delta) + end;
  }
}

bool dev_addr_of(const Device *d, const void *host, uint64_t *addr) {
  for (int i = 0; d && i < d->n; i++) {
    const Alloc *a = &d->allocs[i];
    uint64_t o = (uintptr_t)host - (uintptr_t)(a->start + a->delta);
    if (o < a->span) { *addr = a->start + o; return true; }
  }
  return false;
}

bool dev_find_undef(Device *d, const void *host, uint64_t n, DevUndef *out) {
  if (!d || !d->nundef) return false;
  Alloc *a = undef_of(d, (uintptr_t)host);
  if (!a) return false;
  uint64_t o = (uintptr_t)host - (uintptr_t)(a->start + a->delta), end = o + n;
  if (end > a->size) end = a->size;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint64_t k = o; k < end; k++)
    if (a->undef[k / 8] >> (k & 7) & 1) { if (lo == UINT64_MAX) lo = k; hi = k + 1; }
  if (lo == UINT64_MAX) return false;
  *out = (DevUndef){a->start, a->size, a->start + lo, a->start + hi};
  return true;
}
