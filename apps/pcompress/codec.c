/* Block compression with libbz2 and (if built with it) libzstd. */
#include "codec.h"

#include <bzlib.h>
#ifdef TANDEM_HAVE_ZSTD
#include <zstd.h>
#endif

size_t codec_bound(const codec *c, size_t bytes)
{
#ifdef TANDEM_HAVE_ZSTD
    if (c->kind == CODEC_ZSTD)
        return ZSTD_compressBound(bytes);
#endif
    (void)c;
    return bytes + bytes / 100 + 601; /* libbz2's documented bound: 1% more and 600 bytes */
}

size_t codec_compress(const codec *c, const void *in, size_t bytes, void *out, size_t capacity, const char **error)
{
#ifdef TANDEM_HAVE_ZSTD
    if (c->kind == CODEC_ZSTD) {
        size_t n = ZSTD_compress(out, capacity, in, bytes, c->level);
        if (ZSTD_isError(n)) {
            *error = ZSTD_getErrorName(n);
            return 0;
        }
        return n;
    }
#endif
    unsigned int n = (unsigned int)capacity;
    int rc = BZ2_bzBuffToBuffCompress(out, &n, (char *)in, (unsigned int)bytes, c->level, 0, 0);
    if (rc != BZ_OK) {
        *error = rc == BZ_MEM_ERROR ? "bzip2: out of memory" : rc == BZ_OUTBUFF_FULL ? "bzip2: output larger than its bound" : "bzip2 failed";
        return 0;
    }
    return n;
}

const char *codec_name(const codec *c) { return c->kind == CODEC_ZSTD ? "zstd" : "bzip2"; }

int codec_available(codec_kind kind)
{
#ifdef TANDEM_HAVE_ZSTD
    (void)kind;
    return 1;
#else
    return kind == CODEC_BZIP2;
#endif
}
