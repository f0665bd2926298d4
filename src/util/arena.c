/* arena.c: chunked bump allocator (see arena.h). */
#include "arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next;
  size_t size;
  bool own;              /* one large block of its own (arena_regrow resizes it) */
  _Alignas(16) char data[];
};

/* A block of BIG bytes or more gets a chunk of its own behind the current
 * one, so that the rest of the current chunk is not abandoned, and a large
 * growable array (a 100 MB function's instructions) grows in place instead
 * of leaving each old copy behind. */
enum { CHUNK_MIN = 64 * 1024, BIG = 256 * 1024 };

void arena_init(Arena *a, jmp_buf *oom) {
  memset(a, 0, sizeof *a);
  a->oom = oom;
}

static void *arena_grow(Arena *a, size_t size) {
  size_t want = a->head ? a->head->size * 2 : CHUNK_MIN;
  if (want > 16u << 20) want = 16u << 20;   /* grow geometrically, up to 16 MiB */
  if (want < size) want = size;
  ArenaChunk *c = malloc(sizeof *c + want);
  if (!c) {
    if (a->oom) longjmp(*a->oom, 1);
    return NULL;
  }
  c->next = a->head;
  c->size = want;
  c->own = false;
  a->head = c;
  a->total += want;
  a->cur = c->data + size;
  a->end = c->data + want;
  memset(c->data, 0, size);
  return c->data;
}

static void *own_chunk(Arena *a, size_t size) {
  ArenaChunk *c = malloc(sizeof *c + size);
  if (!c) {
    if (a->oom) longjmp(*a->oom, 1);
    return NULL;
  }
  c->size = size;
  c->own = true;
  if (a->head) {
    c->next = a->head->next;
    a->head->next = c;
  } else {
    c->next = NULL;
    a->head = c;
  }
  a->total += size;
  memset(c->data, 0, size);
  return c->data;
}

void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  if (size >= BIG) return own_chunk(a, size);
  if ((size_t)(a->end - a->cur) < size) return arena_grow(a, size);
  void *p = a->cur;
  a->cur += size;
  memset(p, 0, size);
  return p;
}

void *arena_regrow(Arena *a, void *old, size_t oldsize, size_t newsize) {
  newsize = (newsize + 15) & ~(size_t)15;
  if (old && newsize >= BIG)
    for (ArenaChunk **pp = &a->head; *pp; pp = &(*pp)->next) {
      ArenaChunk *c = *pp;
      if (!c->own || c->data != old) continue;
      if (newsize <= c->size) return old;
      ArenaChunk *nc = realloc(c, sizeof *c + newsize);
      if (!nc) {
        if (a->oom) longjmp(*a->oom, 1);
        return NULL;
      }
      a->total += newsize - nc->size;
      nc->size = newsize;
      *pp = nc;
      return nc->data;
    }
  void *p = arena_alloc(a, newsize);
  if (p && oldsize) memcpy(p, old, oldsize);
  return p;
}

void *arena_dup(Arena *a, const void *p, size_t size) {
  void *q = arena_alloc(a, size);
  if (q && size) memcpy(q, p, size);
  return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *q = arena_alloc(a, n + 1);
  if (q) { memcpy(q, s, n); q[n] = 0; }
  return q;
}

void arena_free(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
  a->cur = a->end = NULL;
  a->total = 0;
}
