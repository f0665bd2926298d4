/* suggest.h: the nearest of the words a command accepts, for "did you
 * mean" (suggest.c). */
#ifndef PTXVM_SUGGEST_H
#define PTXVM_SUGGEST_H

#include <stddef.h>

/* The candidate closest to word by edit distance (insertions, deletions,
 * substitutions and swaps of adjacent characters), or NULL when none is
 * close enough to be a plausible misspelling: at most 2 edits, and fewer
 * than half of the candidate's length. */
const char *suggest(const char *word, const char *const *candidates, size_t n);

#endif
