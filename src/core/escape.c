/* Escaping user input for messages (escape.h). */
#include "core/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of the valid UTF-8 sequence at s (1 to 4), 0 when malformed
 * (overlong, a surrogate, past U+10FFFF, truncated); *cp the code point. */
static int utf8_sequence(const unsigned char *s, uint32_t *cp) {
  const unsigned char c = s[0];
  int n;
  uint32_t v, least;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    v = c & 0x1F;
    least = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    v = c & 0x0F;
    least = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    v = c & 0x07;
    least = 0x10000;
  } else {
    return 0;
  }
  for (int k = 1; k < n; k++) {
    if ((s[k] & 0xC0) != 0x80)
      return 0;
    v = (v << 6) | (s[k] & 0x3F);
  }
  if (v < least || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

/* A code point that changes how a terminal shows what follows, or is not
 * seen: C0 and C1 controls, DEL, zero-width and direction marks, the
 * bidirectional embeddings, overrides and isolates, line and paragraph
 * separators, the byte-order mark. */
static bool hidden(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

size_t rod_text_escape(const char *in, char *out, size_t size) {
  if (size == 0)
    return 0;
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)in;
  size_t used = 0;
  while (*s) {
    uint32_t cp = 0;
    int n = utf8_sequence(s, &cp);
    const bool escape = n == 0 || hidden(cp);
    const int bytes = n == 0 ? 1 : n;
    const size_t need = escape ? 4 * (size_t)bytes : (size_t)bytes;
    if (used + need >= size)
      break;
    for (int k = 0; k < bytes; k++) {
      if (escape) {
        out[used++] = '\\';
        out[used++] = 'x';
        out[used++] = hex[s[k] >> 4];
        out[used++] = hex[s[k] & 15];
      } else {
        out[used++] = (char)s[k];
      }
    }
    s += bytes;
  }
  out[used] = '\0';
  return used;
}

void rod_text_escape_in_place(char *s, size_t size) {
  bool clean = true;
  for (const unsigned char *p = (const unsigned char *)s; *p && clean; p++)
    clean = *p >= 0x20 && *p < 0x7F;
  if (clean || size == 0)
    return;        /* plain ASCII: nothing to escape */
  char copy[1024]; /* no allocation: errors are set inside time steps */
  snprintf(copy, sizeof copy, "%s", s);
  rod_text_escape(copy, s, size);
}
