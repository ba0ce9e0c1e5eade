/* One block of input compressed into one self-contained stream: bzip2's (libbz2) or zstd's frame. A
 * file of such streams one after another is what `bzip2 -d` and `zstd -d` restore. */
#ifndef TANDEM_PCOMPRESS_CODEC_H
#define TANDEM_PCOMPRESS_CODEC_H

#include <stddef.h>

typedef enum codec_kind { CODEC_BZIP2, CODEC_ZSTD } codec_kind;

typedef struct codec {
    codec_kind kind;
    int level; /* bzip2: 1 .. 9 (block of level x 100 kB); zstd: 1 .. 19 */
} codec;

/* The most bytes one block of `bytes` may compress to. */
size_t codec_bound(const codec *c, size_t bytes);
/* Compresses in[0 .. bytes) into out (codec_bound bytes): the stream's length, or 0 on failure with a
 * message in error. */
size_t codec_compress(const codec *c, const void *in, size_t bytes, void *out, size_t capacity, const char **error);
/* "bzip2" or "zstd"; the default extension of its files. */
const char *codec_name(const codec *c);
int codec_available(codec_kind kind);

#endif
