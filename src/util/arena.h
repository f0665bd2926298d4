/* arena.h: bump allocation for everything a module owns.
 *
 * A loaded module (its tokens' strings, IR, symbols) lives in one arena, so a
 * diagnostic that longjmps out of the parser, or unloading the module, frees
 * everything at once (STYLE.md §3). Allocation failure longjmps too, through
 * the handler the arena was given. */
#ifndef PTXVM_ARENA_H
#define PTXVM_ARENA_H

#include <setjmp.h>
#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
  ArenaChunk *head;
  char *cur, *end;
  size_t total;          /* bytes obtained from malloc, for statistics */
  jmp_buf *oom;          /* longjmp target when malloc fails (may be NULL) */
} Arena;

void arena_init(Arena *a, jmp_buf *oom);
void *arena_alloc(Arena *a, size_t size);            /* zeroed, 16-aligned */
void *arena_dup(Arena *a, const void *p, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);

/* Growable array in an arena: doubles by copying (the old block stays in the
 * arena until it is freed). */
#define VEC(T) struct { T *v; int n, cap; }
#define vec_push(A, VEC_, X) do {                                            \
    if ((VEC_).n == (VEC_).cap) {                                            \
      int nc_ = (VEC_).cap ? 2 * (VEC_).cap : 8;                             \
      void *nv_ = arena_alloc((A), (size_t)nc_ * sizeof *(VEC_).v);          \
      if ((VEC_).n) memcpy(nv_, (VEC_).v, (size_t)(VEC_).n * sizeof *(VEC_).v); \
      (VEC_).v = nv_; (VEC_).cap = nc_;                                      \
    }                                                                        \
    (VEC_).v[(VEC_).n++] = (X);                                              \
  } while (0)

#endif
