/* suggest.c: "did you mean": the optimal-string-alignment distance (the
 * Levenshtein distance plus the swap of two adjacent characters, the
 * commonest typing slip) from a misspelled word to each word a command
 * accepts; the nearest within reach wins, the first on a tie. */
#include <string.h>

#include "suggest.h"

enum { MAX_WORD = 64 };

static size_t distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n >= MAX_WORD || m >= MAX_WORD) return (size_t)-1;
  size_t d[MAX_WORD][MAX_WORD];
  for (size_t i = 0; i <= n; i++) d[i][0] = i;
  for (size_t j = 0; j <= m; j++) d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

const char *suggest(const char *word, const char *const *candidates, size_t n) {
  const char *best = NULL;
  size_t best_d = 3;
  for (size_t i = 0; i < n; i++) {
    size_t d = distance(word, candidates[i]);
    if (d < best_d && 2 * d < strlen(candidates[i])) { best = candidates[i]; best_d = d; }
  }
  return best;
}
