/* handles.c: the set of live driver handles (contexts, modules, libraries,
 * functions, streams, events), so that a handle is looked up before it is
 * read: a destroyed or foreign one is refused (CUDA_ERROR_INVALID_HANDLE /
 * INVALID_CONTEXT) instead of being dereferenced. An open-addressing hash
 * set of addresses under one lock; a handle also carries its kind's magic
 * word, so a module passed as a stream is refused too. */
#include <stdlib.h>

#include "driver.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *slots;          /* 0 empty, 1 deleted, else a handle */
static size_t cap, used;          /* used: live + deleted slots */

static size_t hash(uintptr_t p) { return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull); }

/* The slot of p, or of the first free slot on its probe path (insert). */
static size_t find(uintptr_t p, bool insert) {
  size_t i = hash(p) & (cap - 1), tomb = SIZE_MAX;
  for (;; i = (i + 1) & (cap - 1)) {
    if (slots[i] == p) return i;
    if (slots[i] == 1 && tomb == SIZE_MAX) tomb = i;
    if (slots[i] == 0) return insert && tomb != SIZE_MAX ? tomb : i;
  }
}

static bool grow(void) {
  size_t ncap = cap ? cap * 2 : 256;
  uintptr_t *old = slots, *n = calloc(ncap, sizeof *n);
  if (!n) return false;
  size_t ocap = cap;
  slots = n;
  cap = ncap;
  used = 0;
  for (size_t i = 0; i < ocap; i++)
    if (old[i] > 1) {
      slots[find(old[i], true)] = old[i];
      used++;
    }
  free(old);
  return true;
}

bool drv_handle_add(const void *h) {
  pthread_mutex_lock(&lock);
  bool ok = (used + 1) * 2 <= cap || grow();
  if (ok) {
    size_t i = find((uintptr_t)h, true);
    if (slots[i] <= 1) {
      if (slots[i] == 0) used++;
      slots[i] = (uintptr_t)h;
    }
  }
  pthread_mutex_unlock(&lock);
  return ok;
}

void drv_handle_remove(const void *h) {
  pthread_mutex_lock(&lock);
  if (cap) {
    size_t i = find((uintptr_t)h, false);
    if (slots[i] == (uintptr_t)h) slots[i] = 1;
  }
  pthread_mutex_unlock(&lock);
}

bool drv_live(const void *h, uint32_t magic) {
  if (!h) return false;
  pthread_mutex_lock(&lock);
  bool in = cap && slots[find((uintptr_t)h, false)] == (uintptr_t)h;
  pthread_mutex_unlock(&lock);
  return in && *(const uint32_t *)h == magic;   /* every handle starts with its magic */
}
