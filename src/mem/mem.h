/* mem.h: device memory and the address map (DESIGN.md "Memory").
 *
 * Unified addresses: a global address is the host address of its bytes, as
 * with CUDA's unified virtual addressing, so memory the host program owns
 * (registered with dev_register, or allocated with dev_alloc_host) and
 * managed memory are used by kernels and by the host with the same pointer.
 * Global memory is one device arena per context, reserved up front and
 * committed as it grows; the first device of a process reserves it at
 * ARENA_FIXED (so runs are reproducible: the same program gets the same
 * addresses), any later or concurrent one, or one that finds that range
 * taken (a sanitizer's shadow, a large mapping of the host program), where
 * the host puts it. The arenas of several contexts are disjoint ranges of
 * one address space, so their addresses never coincide. device.c says how
 * a device buffer is kept out of the host's reach.
 *
 * Generic address map (64-bit):
 *   [SHARED_WINDOW, SHARED_WINDOW + 2^32)        shared memory of the executing
 *                                                CTA; state-space .shared
 *                                                addresses are offsets from 0
 *   [LOCAL_WINDOW, LOCAL_WINDOW + 2^32)          local memory of the executing
 *                                                thread; .local addresses are
 *                                                offsets from 0
 *   [PARAM_WINDOW, PARAM_WINDOW + 2^32)          the kernel's parameter buffer
 *                                                (read-only); .param addresses
 *                                                of kernel parameters are
 *                                                offsets from 0
 *   every other address                          global (and .const variables):
 *                                                an allocation of the arena or
 *                                                a registered host range
 * The windows are reserved in the host's address space (PROT_NONE) at the
 * first dev_create, so no host memory can lie there; where one is taken
 * already, dev_register refuses ranges that overlap it.
 * Shared addresses and clusters (issue 7): a .shared::cluster address of
 * byte `off` of the CTA of %cluster_ctarank r is ((r + 1) << 24) | off
 * (SHARED_RANK_SHIFT; shared memory per CTA is at most 227 KiB < 2^24). An
 * address whose rank bits are zero names the executing CTA, so every
 * .shared::cta address is also the .shared::cluster address of the own CTA;
 * the generic form adds SHARED_WINDOW. Every shared access decodes the rank:
 * a rank outside the cluster, or a CTA whose threads have all exited, is a
 * located fault. mapa to the own rank returns the rank-0 (::cta) form.
 * cvta adds the window base, cvta.to subtracts it; isspacep tests the range.
 * Every access is checked against the live allocations (global), the CTA's
 * shared size, or the thread's local size; a bad one is a located fault. */
#ifndef PTXVM_MEM_H
#define PTXVM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARENA_FIXED   0x00007a0000000000ull  /* the first arena, when free */
#define PARAM_WINDOW  0x00007c0000000000ull  /* kernel parameters (cvta.param) */
#define LOCAL_WINDOW  0x00007d0000000000ull
#define SHARED_WINDOW 0x00007e0000000000ull
#define WINDOW_SIZE   0x0000000100000000ull  /* 2^32 bytes per window */
#define WINDOW_STRIDE 0x0000010000000000ull  /* 2^40 from one window to the next */
#define SHARED_RANK_SHIFT  24                /* .shared::cluster: (rank + 1) << 24 */
#define SHARED_OFFSET_MASK 0x00ffffffull

/* Whether addr lies in the shared, local or param window. */
static inline bool mem_in_window(uint64_t addr) {
  uint64_t o = addr - PARAM_WINDOW;
  return o < 3 * WINDOW_STRIDE && (o & (WINDOW_STRIDE - 1)) < WINDOW_SIZE;
}

/* The mmap flag of a fixed reservation: MAP_FIXED_NOREPLACE (Linux 4.17;
 * older kernels take it as a hint), but a plain hint under ThreadSanitizer,
 * whose mmap maps a fixed request outside its application ranges at address
 * 0 and then aborts, and which drops a hint it cannot take. */
#if defined(__SANITIZE_THREAD__)
#define MEM_NOREPLACE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MEM_NOREPLACE 0
#endif
#endif
#ifndef MEM_NOREPLACE
#ifdef MAP_FIXED_NOREPLACE
#define MEM_NOREPLACE MAP_FIXED_NOREPLACE
#else
#define MEM_NOREPLACE 0x100000
#endif
#endif

typedef struct Device Device;

/* What an allocation of the table is. DEVICE and MANAGED live in the arena
 * (and count against its limit); HOST and REGISTERED are external ranges:
 * host memory that kernels may reach at its own address. */
typedef enum MemKind {
  MK_DEVICE,       /* dev_alloc: kernels only (device.c: the host's view faults) */
  MK_MANAGED,      /* dev_alloc_managed: the host and kernels at the same address */
  MK_HOST,         /* dev_alloc_host: host memory the device owns */
  MK_REGISTERED,   /* dev_register: the host program's memory */
} MemKind;

/* One allocation, as dev_range reports it. */
typedef struct DevRange {
  uint64_t start, size;    /* requested bytes */
  MemKind kind;
  bool readonly;           /* to kernels */
  uint64_t id;             /* unique in the process, never reused */
  unsigned user;           /* dev_set_user's value (0 at first) */
} DevRange;

/* A device of max_bytes (rounded up to 2 MiB; less where the host cannot
 * reserve that much address space: dev_reserved says); NULL on failure. */
Device *dev_create(size_t max_bytes);
/* Frees everything, MK_HOST allocations included (registered ranges are
 * the host program's: only forgotten). */
void dev_destroy(Device *d);
/* Allocations must end within the first `bytes` of the arena (initially
 * all of it); false when that is more than the reservation. */
bool dev_set_limit(Device *d, uint64_t bytes);
uint64_t dev_limit(const Device *d);
uint64_t dev_reserved(const Device *d);
/* Bytes the live arena allocations take, with their guards. */
uint64_t dev_used(const Device *d);
/* Whether the host's view of MK_DEVICE memory faults (device.c: false only
 * where the arena could not be mapped twice). */
bool dev_device_hidden(const Device *d);
/* Allocates size bytes aligned to align (a power of two >= 1; 256 is used
 * for user buffers, as cudaMalloc does). Returns the device address, or 0
 * when the arena is full. The memory is zeroed (without touching pages
 * that were never used: they cost the host nothing until written). pad (0
 * or a power of two): kernels may also reach the bytes up to the next
 * multiple of pad (dev_host_padded), and the guard follows those. */
uint64_t dev_alloc(Device *d, uint64_t size, uint64_t align, uint64_t pad);
/* As dev_alloc (page-aligned), memory the host may also read and write at
 * the returned address. */
uint64_t dev_alloc_managed(Device *d, uint64_t size, uint64_t pad);
/* size bytes of zeroed host memory (whole pages, outside the arena) that
 * kernels may access at the same address; NULL when the host has none. */
void *dev_alloc_host(Device *d, uint64_t size);
/* Makes the host program's [p, p+size) an allocation kernels may access
 * (read-only to them if readonly). Returns 0, or why not: */
enum { REG_OK, REG_EMPTY, REG_OVERLAP, REG_WINDOW, REG_UNMAPPED, REG_NOMEM };
int dev_register(Device *d, void *p, uint64_t size, bool readonly);
/* Frees an allocation (not a registered range) by its start address;
 * false if addr starts none. */
bool dev_free(Device *d, uint64_t addr);
/* Marks the allocation starting at addr as ptxvm's own (a module's
 * variable, a launch's workspace): dev_free_user refuses it. */
void dev_own(Device *d, uint64_t addr);
/* As dev_free, for the user's ptxvm_mem_free: also false for an
 * allocation dev_own marked. */
bool dev_free_user(Device *d, uint64_t addr);
/* Forgets the registered range starting at addr; false if none does. */
bool dev_unregister(Device *d, uint64_t addr);
/* Host pointer for [addr, addr+size) if it lies inside one live allocation,
 * else NULL. */
void *dev_host(Device *d, uint64_t addr, uint64_t size);
/* As dev_host, for a kernel's write: NULL also in a read-only allocation. */
void *dev_host_w(Device *d, uint64_t addr, uint64_t size);
/* As dev_host (dev_host_w if write), up to the allocation's padding
 * (dev_alloc's pad) rather than its size: a kernel's access that a GPU
 * would not fault on (access.c; --check reports it). */
void *dev_host_padded(Device *d, uint64_t addr, uint64_t size, bool write);
/* Makes the allocation starting at addr read-only to kernels (a .const
 * variable: the host may still write it). */
void dev_protect(Device *d, uint64_t addr);
/* Sets the caller's value of the allocation starting at addr (false if
 * none does). */
bool dev_set_user(Device *d, uint64_t addr, unsigned user);
/* Size of the live allocation starting at addr, or 0. */
uint64_t dev_alloc_size(Device *d, uint64_t addr);
/* The live allocation that contains addr (or whose guard does): sets *start
 * and *size (and *readonly, if not NULL) and returns true, or false when
 * addr is in none (used for fault messages). */
bool dev_find(Device *d, uint64_t addr, uint64_t *start, uint64_t *size, bool *readonly);
/* The live allocation whose bytes (not its guard) hold addr; a zero-size
 * allocation holds its start. */
bool dev_range(Device *d, uint64_t addr, DevRange *out);

/* ---- the device heap (heap.c): device-side malloc and free ----
 * One per device, made by the first dev_heap_open and kept until
 * dev_destroy; an allocation of the arena (dev_free refuses it). */
typedef struct DevHeap DevHeap;
enum { HEAP_OK, HEAP_NOMEM, HEAP_NODEVICE, HEAP_OUTSIDE, HEAP_NOT_BLOCK, HEAP_DOUBLE };
/* Makes the heap of `size` bytes (rounded up to 16) unless there is one
 * already (its size stays): HEAP_OK, HEAP_NOMEM (host memory for its
 * bitmaps), HEAP_NODEVICE (the arena has no room for it). */
int dev_heap_open(Device *d, uint64_t size);
/* Whether the heap exists; *base (0 for a heap of 0 bytes) and *size. */
bool dev_heap_get(Device *d, uint64_t *base, uint64_t *size);
/* A block of at least `size` bytes (0: 16), 16-byte aligned, not zeroed;
 * 0 when the heap has no room (or does not exist). Thread-safe. */
uint64_t dev_heap_malloc(Device *d, uint64_t size);
/* Frees the block that starts at addr (*bytes: its size, rounded up to
 * 16): HEAP_OK, HEAP_OUTSIDE (not in the heap), HEAP_DOUBLE (a block
 * started there and was freed already), HEAP_NOT_BLOCK (no block starts
 * there). Thread-safe. */
int dev_heap_free(Device *d, uint64_t addr, uint64_t *bytes);
/* For heap.c: the device's heap pointer, and freeing a heap. */
DevHeap **dev_heap_slot(Device *d);
void dev_heap_destroy(DevHeap *h);
/* initcheck (--check, issue 17). dev_set_undef gives the MK_DEVICE
 * allocation starting at addr a bitmap in which every byte is "never
 * written" (false: no such allocation, or no memory); every other
 * allocation counts as written. dev_set_written clears the bits of host
 * bytes [host, host+n) (a host copy or set, a kernel's store, atomic or
 * copy landing); dev_find_undef says whether any of [host, host+n) was
 * never written: its allocation and the device range of those bytes. */
typedef struct DevUndef { uint64_t start, size, lo, hi; } DevUndef;
bool dev_set_undef(Device *d, uint64_t addr);
void dev_set_written(Device *d, const void *host, uint64_t n);
bool dev_find_undef(Device *d, const void *host, uint64_t n, DevUndef *out);
/* Whether any allocation has a bitmap. */
bool dev_tracks_undef(const Device *d);
/* The device address of host byte host, when it lies in an allocation of d
 * (a finding names device addresses, as the program sees them). */
bool dev_addr_of(const Device *d, const void *host, uint64_t *addr);

#endif
