/* User input echoed in a message, made safe to show: bytes that are not
 * printable UTF-8 (control bytes such as a terminal's escape sequences,
 * C1 controls, bidirectional overrides, line separators, malformed UTF-8)
 * become \xNN, so that a message stays one line of what the file says. */
#ifndef ROD_CORE_ESCAPE_H
#define ROD_CORE_ESCAPE_H

#include <stddef.h>

/* in (NUL-terminated) escaped into out (size bytes, NUL-terminated,
 * truncated at a whole character or escape); returns the bytes written
 * before the NUL. in and out must not overlap. Escaping an escaped text
 * changes nothing. */
size_t rod_text_escape(const char *in, char *out, size_t size);

/* Escape s (at most 1023 bytes are read) in place (size: its buffer),
 * truncating if it grows past it. */
void rod_text_escape_in_place(char *s, size_t size);

#endif
