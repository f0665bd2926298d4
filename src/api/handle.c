/* handle.c: the handles of ptxvm.h (api.h "handles").
 *
 * A handle is 64 bits: the index + 1 of a slot in one process-wide table
 * (the high 32 bits; never 0, so no handle is NULL) and the slot's
 * generation when the handle was made (the low 32). Retiring a handle bumps
 * its slot's generation and puts the slot on a free list; reused, the slot
 * gives handles of the new generation, so an old handle never matches again
 * (until the same slot has been reused 2^32 times). Slots live in chunks
 * that are allocated on demand and never freed, so looking a handle up
 * never reads freed memory, under ASan included: a module unloaded twice, a
 * function of an unloaded module, a module of a destroyed context are
 * PTXVM_ERROR_INVALID_HANDLE, not a use after free.
 *
 * Each slot names the context that owns it; a context's slot holds the
 * "a call is in progress" flag that api_enter sets with one atomic exchange,
 * so a second host thread using the context at the same time (which
 * ptxvm.h forbids) gets PTXVM_ERROR_CONTEXT_BUSY instead of a silent race.
 *
 * Lookups are lock-free (ptxvm_cancel runs in signal handlers); making and
 * retiring handles take the table's mutex. The table is the library's one
 * piece of global mutable state. */
#include <pthread.h>
#include <stdlib.h>

#include "api.h"

enum { CHUNK_BITS = 12, CHUNK = 1 << CHUNK_BITS, MAX_CHUNKS = 1 << 12 };   /* 2^24 slots */

typedef struct Slot {
  _Atomic uint32_t gen;       /* the live handle's generation */
  _Atomic int kind;           /* HandleKind; H_FREE when retired */
  _Atomic(void *) obj;
  _Atomic uint64_t owner;     /* the owning context's handle */
  atomic_int busy;            /* contexts: a call is in progress */
  uint32_t next_free;         /* index + 1 of the next free slot (under lock) */
} Slot;

static Slot *_Atomic chunks[MAX_CHUNKS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t used;         /* slots ever handed out (under lock) */
static uint32_t free_head;    /* index + 1 of the first free slot, 0: none */

static Slot *slot_at(uint32_t i) {
  if (i >= (uint32_t)MAX_CHUNKS * CHUNK) return NULL;
  Slot *c = atomic_load_explicit(&chunks[i >> CHUNK_BITS], memory_order_acquire);
  return c ? &c[i & (CHUNK - 1)] : NULL;
}

/* The slot of a live handle of that kind (H_FREE: of any kind), else NULL. */
static Slot *live(uint64_t h, HandleKind kind) {
  if (!(h >> 32)) return NULL;
  Slot *s = slot_at((uint32_t)(h >> 32) - 1);
  if (!s || atomic_load_explicit(&s->gen, memory_order_acquire) != (uint32_t)h) return NULL;
  int k = atomic_load_explicit(&s->kind, memory_order_acquire);
  return k != H_FREE && (kind == H_FREE || k == (int)kind) ? s : NULL;
}

/* Under lock: a slot not in use and its index, or NULL. */
static Slot *take_slot(uint32_t *i) {
  if (free_head) {
    *i = free_head - 1;
    Slot *s = slot_at(*i);
    free_head = s->next_free;
    return s;
  }
  if (used >= (uint32_t)MAX_CHUNKS * CHUNK) return NULL;
  uint32_t c = used >> CHUNK_BITS;
  if (!atomic_load_explicit(&chunks[c], memory_order_relaxed)) {
    Slot *fresh = calloc(CHUNK, sizeof *fresh);
    if (!fresh) return NULL;
    atomic_store_explicit(&chunks[c], fresh, memory_order_release);
  }
  *i = used++;
  return slot_at(*i);
}

uint64_t handle_new(HandleKind kind, void *obj, uint64_t owner) {
  pthread_mutex_lock(&lock);
  uint32_t i = 0;
  Slot *s = take_slot(&i);
  uint64_t h = 0;
  if (s) {
    h = (uint64_t)(i + 1) << 32 | atomic_load_explicit(&s->gen, memory_order_relaxed);
    atomic_store_explicit(&s->obj, obj, memory_order_relaxed);
    atomic_store_explicit(&s->owner, owner ? owner : h, memory_order_relaxed);
    atomic_store_explicit(&s->busy, 0, memory_order_relaxed);
    atomic_store_explicit(&s->kind, (int)kind, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  return h;
}

void handle_free(uint64_t h) {
  pthread_mutex_lock(&lock);
  Slot *s = live(h, H_FREE);
  if (s) {
    atomic_store_explicit(&s->kind, H_FREE, memory_order_relaxed);
    atomic_store_explicit(&s->gen, (uint32_t)h + 1, memory_order_release);
    atomic_store_explicit(&s->obj, NULL, memory_order_relaxed);
    atomic_store_explicit(&s->busy, 0, memory_order_release);
    s->next_free = free_head;
    free_head = (uint32_t)(h >> 32);
  }
  pthread_mutex_unlock(&lock);
}

void *handle_obj(const void *h, HandleKind kind) {
  Slot *s = live((uint64_t)(uintptr_t)h, kind);
  return s ? atomic_load_explicit(&s->obj, memory_order_relaxed) : NULL;
}

ptxvm_status api_enter(const void *hp, HandleKind kind, Ctx **ctx, void **obj) {
  uint64_t h = (uint64_t)(uintptr_t)hp;
  if (!h) return PTXVM_ERROR_INVALID_VALUE;
  Slot *s = live(h, kind);
  if (!s) return PTXVM_ERROR_INVALID_HANDLE;
  uint64_t oh = atomic_load_explicit(&s->owner, memory_order_relaxed);
  Slot *cs = live(oh, H_CONTEXT);
  if (!cs) return PTXVM_ERROR_INVALID_HANDLE;
  if (atomic_exchange_explicit(&cs->busy, 1, memory_order_acquire)) return PTXVM_ERROR_CONTEXT_BUSY;
  /* retired meanwhile (only by a call racing on the context) */
  if (!live(h, kind) || !live(oh, H_CONTEXT)) {
    atomic_store_explicit(&cs->busy, 0, memory_order_release);
    return PTXVM_ERROR_INVALID_HANDLE;
  }
  *ctx = atomic_load_explicit(&cs->obj, memory_order_relaxed);
  if (obj) *obj = atomic_load_explicit(&s->obj, memory_order_relaxed);
  return PTXVM_SUCCESS;
}

ptxvm_status api_leave(Ctx *ctx, ptxvm_status st) {
  Slot *cs = live(ctx->h, H_CONTEXT);
  if (cs) atomic_store_explicit(&cs->busy, 0, memory_order_release);
  return st;
}
