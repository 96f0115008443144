/* One chunk of a dataset packed as HDF5's filters would store it (byte
 * shuffle, then deflate in zlib's format), for a direct chunk write
 * (H5Dwrite_chunk): the compression runs on the logger's writer thread,
 * outside HDF5's calls, with a faster deflate than HDF5's own (ISA-L's
 * igzip for output.compression 1 to 3, zlib beyond). Any reader inflates
 * the chunks with the ordinary filters. */
#ifndef ROD_IO_DEFLATE_CHUNK_H
#define ROD_IO_DEFLATE_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/bulk.h"

/* The filter mask of a chunk stored as it is (shuffle and deflate, the
 * dataset's filters 0 and 1, skipped): where deflating does not make it
 * smaller. */
#define ROD_CHUNK_RAW 3u

typedef struct {
  int level;               /* output.compression: 0 none, 1..9 */
  size_t capacity;         /* B: the largest chunk */
  unsigned char *shuffled; /* capacity */
  unsigned char *out;      /* capacity */
  unsigned char *work;     /* igzip's hash tables (levels 1..3) */
  size_t work_size;
  bool borrowed; /* the buffers are a rod_bulk's */
} rod_deflater;

/* Buffers for chunks of up to capacity bytes at level (0 .. 9), taken
 * from `from` (NULL: malloc'd). ROD_OK or ROD_ENOMEM. */
int rod_deflater_init(rod_deflater *d, int level, size_t capacity,
                      rod_bulk *from);

/* B the buffers of rod_deflater_init take from a rod_bulk. */
size_t rod_deflater_room(int level, size_t capacity);
void rod_deflater_free(rod_deflater *d);

/* The stored form of the n bytes at values (elements of esize bytes):
 * level 0 the bytes themselves (mask 0); else shuffled and deflated (mask
 * 0), or the bytes themselves (mask ROD_CHUNK_RAW) when deflate does not
 * make them smaller or as_is asks for them (a chunk of a fixed length, to
 * be written again in place). Returns the bytes to write (valid until the
 * next call) and their length in *len. */
const void *rod_deflate_chunk(rod_deflater *d, const unsigned char *values,
                              size_t n, size_t esize, bool as_is, size_t *len,
                              uint32_t *mask);

#endif
