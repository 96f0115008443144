/* Chunks packed as HDF5's shuffle and deflate filters store them
 * (deflate_chunk.h): igzip (ISA-L) for output.compression 1 to 3, zlib's
 * deflate at the level beyond. Both write zlib streams (RFC 1950), which
 * HDF5's deflate filter inflates. */
#include "io/deflate_chunk.h"

#include <isa-l/igzip_lib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rod/status.h"

/* igzip's levels for output.compression 1, 2, 3, and the room its hash
 * tables take at each. */
static const int igzip_level[] = {0, 1, 2, 3};
static const size_t igzip_work[] = {
    0, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};

static bool uses_igzip(int level) { return level >= 1 && level <= 3; }

size_t rod_deflater_room(int level, size_t capacity) {
  if (level == 0)
    return 0;
  return 2 * rod_bulk_room(capacity) +
         (uses_igzip(level) ? rod_bulk_room(igzip_work[level]) : 0);
}

/* n B from `from`, or malloc'd */
static unsigned char *take(rod_bulk *from, size_t n) {
  return from ? rod_bulk_take(from, n) : malloc(n);
}

int rod_deflater_init(rod_deflater *d, int level, size_t capacity,
                      rod_bulk *from) {
  memset(d, 0, sizeof *d);
  d->level = level;
  d->capacity = capacity;
  d->borrowed = from != NULL;
  if (level == 0)
    return ROD_OK;
  d->shuffled = take(from, capacity);
  d->out = take(from, capacity);
  if (uses_igzip(level)) {
    d->work_size = igzip_work[level];
    d->work = take(from, d->work_size);
  }
  if (!d->shuffled || !d->out || (uses_igzip(level) && !d->work)) {
    rod_deflater_free(d);
    return ROD_ENOMEM;
  }
  return ROD_OK;
}

void rod_deflater_free(rod_deflater *d) {
  if (!d->borrowed) {
    free(d->shuffled);
    free(d->out);
    free(d->work);
  }
  memset(d, 0, sizeof *d);
}

/* Bytes b of x[0..7] into byte e of x[b]: the 8 x 8 byte matrix
 * transposed by swapping its 1-, 2- and 4-byte blocks across the
 * diagonal. */
static void transpose8(uint64_t x[8]) {
  for (int i = 0; i < 8; i += 2) {
    const uint64_t t = ((x[i] >> 8) ^ x[i + 1]) & 0x00ff00ff00ff00ffu;
    x[i + 1] ^= t;
    x[i] ^= t << 8;
  }
  for (int i = 0; i < 8; i += (i % 4 == 1) ? 3 : 1) {
    const uint64_t t = ((x[i] >> 16) ^ x[i + 2]) & 0x0000ffff0000ffffu;
    x[i + 2] ^= t;
    x[i] ^= t << 16;
  }
  for (int i = 0; i < 4; i++) {
    const uint64_t t = ((x[i] >> 32) ^ x[i + 4]) & 0x00000000ffffffffu;
    x[i + 4] ^= t;
    x[i] ^= t << 32;
  }
}

/* HDF5's shuffle: byte b of element e to b * (n / esize) + e; doubles
 * eight at a time. */
static void shuffle(const unsigned char *in, unsigned char *out, size_t n,
                    size_t esize) {
  const size_t count = n / esize;
  size_t e0 = 0;
  if (esize == 8)
    for (; e0 + 8 <= count; e0 += 8) {
      uint64_t x[8];
      memcpy(x, in + 8 * e0, sizeof x);
      transpose8(x);
      for (int b = 0; b < 8; b++)
        memcpy(out + (size_t)b * count + e0, &x[b], sizeof x[b]);
    }
  for (size_t b = 0; b < esize; b++)
    for (size_t e = e0; e < count; e++)
      out[b * count + e] = in[e * esize + b];
}

/* Deflate n bytes of in into d->out (at most limit bytes): the length, or
 * 0 when the stream does not fit. */
static size_t deflate_into(rod_deflater *d, const unsigned char *in, size_t n,
                           size_t limit) {
  if (uses_igzip(d->level)) {
    struct isal_zstream z;
    isal_deflate_stateless_init(&z);
    z.level = (uint32_t)igzip_level[d->level];
    z.level_buf = d->work;
    z.level_buf_size = (uint32_t)d->work_size;
    z.gzip_flag = IGZIP_ZLIB;
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uint32_t)n;
    z.next_out = d->out;
    z.avail_out = (uint32_t)limit;
    return isal_deflate_stateless(&z) == COMP_OK ? z.total_out : 0;
  }
  uLongf len = (uLongf)limit;
  return compress2(d->out, &len, in, (uLong)n, d->level) == Z_OK ? len : 0;
}

const void *rod_deflate_chunk(rod_deflater *d, const unsigned char *values,
                              size_t n, size_t esize, bool as_is, size_t *len,
                              uint32_t *mask) {
  *len = n;
  *mask = d->level == 0 ? 0 : ROD_CHUNK_RAW;
  if (d->level == 0 || as_is)
    return values;
  const unsigned char *in = values;
  if (esize > 1) {
    shuffle(values, d->shuffled, n, esize);
    in = d->shuffled;
  }
  const size_t z = deflate_into(d, in, n, n - 1);
  if (z == 0) /* deflate does not gain */
    return values;
  *len = z;
  *mask = 0;
  return d->out;
}
