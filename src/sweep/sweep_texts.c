/* The definition's texts (sweep_internal.h): a text without its
 * surrounding blanks (every key and value of the definition and of the
 * cases CSV), and an array of texts freed. */
#include <stdlib.h>
#include <string.h>

#include "sweep_internal.h"

void sweep_texts_free(char **texts, size_t n) {
  for (size_t i = 0; texts && i < n; i++)
    free(texts[i]);
  free(texts);
}

/* s without leading and trailing blanks, as a new string (NULL: out of
 * memory). */
char *sweep_trimmed(const char *s, size_t n) {
  while (n > 0 && (*s == ' ' || *s == '\t'))
    s++, n--;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
                   s[n - 1] == '\n'))
    n--;
  char *t = malloc(n + 1);
  if (t) {
    memcpy(t, s, n);
    t[n] = '\0';
  }
  return t;
}
