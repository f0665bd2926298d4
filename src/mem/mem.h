/* mem.h: device memory and the address map (DESIGN.md "Memory").
 *
 * Global memory is one device arena per context, reserved up front and
 * committed as it grows. Device addresses are stable numbers independent of
 * where the host put the arena: GLOBAL_BASE + offset, so runs are
 * reproducible and a device pointer is never a host pointer.
 *
 * Generic address map (64-bit):
 *   [GLOBAL_BASE, GLOBAL_BASE + arena size)      global (and .const variables)
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

#define GLOBAL_BASE   0x00007f0000000000ull
#define SHARED_WINDOW 0x00007e0000000000ull
#define LOCAL_WINDOW  0x00007d0000000000ull
#define PARAM_WINDOW  0x00007c0000000000ull  /* kernel parameters (cvta.param) */
#define WINDOW_SIZE   0x0000000100000000ull  /* 2^32 bytes per window */
#define SHARED_RANK_SHIFT  24                /* .shared::cluster: (rank + 1) << 24 */
#define SHARED_OFFSET_MASK 0x00ffffffull

typedef struct Device Device;

/* A device of max_bytes (rounded up to 2 MiB; less where the host cannot
 * reserve that much address space: dev_reserved says); NULL on failure. */
Device *dev_create(size_t max_bytes);
void dev_destroy(Device *d);
/* Allocations must end within the first `bytes` of the arena (initially
 * all of it); false when that is more than the reservation. */
bool dev_set_limit(Device *d, uint64_t bytes);
uint64_t dev_limit(const Device *d);
uint64_t dev_reserved(const Device *d);
/* Bytes the live allocations take, with their guards. */
uint64_t dev_used(const Device *d);
/* Allocates size bytes aligned to align (a power of two >= 1; 256 is used
 * for user buffers, as cudaMalloc does). Returns the device address, or 0
 * when the arena is full. The memory is zeroed (without touching pages
 * that were never used: they cost the host nothing until written). */
uint64_t dev_alloc(Device *d, uint64_t size, uint64_t align);
/* Frees an allocation by its start address; false if addr starts none. */
bool dev_free(Device *d, uint64_t addr);
/* Host pointer for [addr, addr+size) if it lies inside one live allocation,
 * else NULL. */
void *dev_host(Device *d, uint64_t addr, uint64_t size);
/* As dev_host, for a kernel's write: NULL also in a read-only allocation. */
void *dev_host_w(Device *d, uint64_t addr, uint64_t size);
/* Makes the allocation starting at addr read-only to kernels (a .const
 * variable: the host may still write it). */
void dev_protect(Device *d, uint64_t addr);
/* Size of the live allocation starting at addr, or 0. */
uint64_t dev_alloc_size(Device *d, uint64_t addr);
/* The live allocation that contains addr (or whose guard does): sets *start
 * and *size (and *readonly, if not NULL) and returns true, or false when
 * addr is in none (used for fault messages). */
bool dev_find(Device *d, uint64_t addr, uint64_t *start, uint64_t *size, bool *readonly);

#endif
