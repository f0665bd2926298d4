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
/* A block of newsize bytes holding the oldsize bytes of old (NULL: none),
 * which came from arena_alloc or arena_regrow. A large block is resized in
 * place (realloc), so old is then invalid; a small one is copied and old
 * stays readable until the arena is freed. Bytes past oldsize are unset. */
void *arena_regrow(Arena *a, void *old, size_t oldsize, size_t newsize);
void *arena_dup(Arena *a, const void *p, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);

/* Growable array in an arena: doubles through arena_regrow, so a large one
 * grows in place and a pointer into it is invalid after a push. */
#define VEC(T) struct { T *v; int n, cap; }
#define vec_push(A, VEC_, X) do {                                            \
    if ((VEC_).n == (VEC_).cap) {                                            \
      int nc_ = (VEC_).cap ? 2 * (VEC_).cap : 8;                             \
      (VEC_).v = arena_regrow((A), (VEC_).v, (size_t)(VEC_).n * sizeof *(VEC_).v, \
                              (size_t)nc_ * sizeof *(VEC_).v);               \
      (VEC_).cap = nc_;                                                      \
    }                                                                        \
    (VEC_).v[(VEC_).n++] = (X);                                              \
  } while (0)

#endif
