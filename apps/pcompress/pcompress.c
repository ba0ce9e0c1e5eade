/*
 * tandem-pcompress: parallel compression of a file, bzip2's format (zstd's as an option). The file is cut
 * into blocks dealt round-robin to the ranks (rank r compresses blocks r, r + p, r + 2p, ...); each
 * block becomes one self-contained stream; rank 0 gathers them and writes them in block order, a file
 * that `bzip2 -d` (or `zstd -d`) restores byte for byte.
 *
 * blocking:  every block compressed, then the sizes gathered and the streams gathered (TDM_Gather,
 *            TDM_Gatherv), the overlap-patterns paper's naive scheme;
 * pipelined: a gatherv overlap pattern (tandem_patterns.h): tiles of blocks gathered while the next
 *            are compressed, the sizes exchanged first, pipelined too.
 * Each rank's streams travel framed (a 4-byte little-endian length before each) so that rank 0 can
 * put the blocks of a tile back in order.
 */
#include "../common/app_cli.h"
#include "../common/app_kernel.h"
#include "codec.h"
#include "tandem_patterns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAME_HEADER 4

typedef struct job {
    app_common common;
    const char *in_path, *out_path;
    long long made_up;   /* --made-up BYTES instead of --in: generated input */
    int made_up_random;  /* --made-up-kind random: bytes that do not compress (the paper's input) */
    codec codec;
    long block;          /* input bytes per block */
    long long in_bytes, blocks;
    int in_fd;
    FILE *out;           /* rank 0 */
    long long out_bytes; /* written this run */
    char *in_block;
    size_t frame_cap;    /* a framed stream of one block at most */
    char message[512];   /* the first error of this rank */
    double write_time;
    app_kernel kernel;   /* a block read and compressed: timed (and, under SMPI, charged) */
    double sampled_bytes; /* sampled kernels: the streams' bytes per input byte, summed */
    long sampled_runs;
    double compute;
} job;

static const char *usage =
    "usage: tandem-pcompress --in FILE --out FILE.bz2 [options]\n"
    "  compresses FILE in parallel; rank 0 writes a .bz2 (or .zst) file of one stream per block\n"
    "  --variant blocking|pipelined   gather after compressing everything, or pipelined (default)\n"
    "  --tile N|auto --window N|auto  blocks per gather and gathers in flight (pipelined; default auto)\n"
    "  --tune                         let the pattern's tuner try neighbouring tiles and windows\n"
    "  --codec bzip2|zstd             the format (default bzip2)\n"
    "  --level L                      bzip2 1..9 (default 9), zstd 1..19 (default 3)\n"
    "  --block BYTES                  input bytes per block (default 900000, bzip2 -9's block)\n"
    "  --made-up BYTES                instead of --in: that many bytes of made-up printable data (benchmarks,\n"
    "                                 simulation; bzip2 -9 makes them about 5.6 times smaller)\n"
    "  --made-up-kind text|random     the made-up data: printable text (default), or random bytes, which no\n"
    "                                 codec makes smaller (the overlap-patterns paper compressed random data)\n"
    "  --reps R                       runs (the table shows medians)\n"
    "  --csv FILE                     the table's row, also as CSV\n";

static long long items_of(const job *j, int rank)
{
    return j->blocks > rank ? (j->blocks - 1 - rank) / app_size + 1 : 0;
}

__attribute__((format(printf, 2, 3))) static void fail_here(job *j, const char *fmt, ...)
{
    if (j->message[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->message, sizeof j->message, fmt, ap);
    va_end(ap);
}

/* Bytes at..at + len of the made-up input, from a hash of each byte's offset (any rank makes any
 * block): printable characters of it, or (random) its high byte. */
static void made_up_bytes(unsigned char *to, unsigned long long at, size_t len, int random)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 \n";
    for (size_t k = 0; k < len; k++) {
        unsigned long long x = (at + k) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 31;
        if (random) { /* the rest of splitmix64's finalizer: every output bit depends on every input bit */
            x *= 0xBF58476D1CE4E5B9ull;
            x ^= x >> 27;
            x *= 0x94D049BB133111EBull;
            x ^= x >> 31;
            to[k] = (unsigned char)(x >> 56);
        } else {
            to[k] = (unsigned char)alphabet[(x >> 7) % 64];
        }
    }
}

/* Item `item` of this rank: block item p + rank, read and compressed into a frame at out. */
static int compress_item(int item, void *const out[], int counts[], void *user)
{
    job *j = user;
    long long block = (long long)item * app_size + app_rank;
    off_t at = (off_t)(block * j->block);
    size_t len = (size_t)(j->in_bytes - at < j->block ? j->in_bytes - at : j->block), got = 0, n = 0;
    unsigned char *frame = out[0];
    for (app_kernel_begin(&j->kernel, (double)len); app_kernel_next(&j->kernel);) {
        if (j->made_up) {
            made_up_bytes((unsigned char *)j->in_block, (unsigned long long)at, len, j->made_up_random);
        } else {
            for (got = 0; got < len;) {
                ssize_t part = pread(j->in_fd, j->in_block + got, len - got, at + (off_t)got);
                if (part <= 0) {
                    fail_here(j, "--in %s: shorter than it was at the start (changed while compressing?)", j->in_path);
                    app_kernel_end(&j->kernel);
                    return MPI_ERR_FILE;
                }
                got += (size_t)part;
            }
        }
        const char *error = "";
        n = codec_compress(&j->codec, j->in_block, len, frame + FRAME_HEADER, j->frame_cap - FRAME_HEADER, &error);
        if (n == 0) {
            fail_here(j, "%s", error);
            app_kernel_end(&j->kernel);
            return MPI_ERR_OTHER;
        }
        j->sampled_bytes += (double)n / (double)(len ? len : 1), j->sampled_runs++;
    }
    char ratio_name[64];
    snprintf(ratio_name, sizeof ratio_name, "%s-ratio", j->kernel.name);
    if (j->sampled_runs)
        app_kernel_keep(ratio_name, j->sampled_bytes / (double)j->sampled_runs);
    double ratio = 0;
    if (app_kernel_sampling() && app_kernel_value(ratio_name, &ratio)) /* not computed: as long as computed ones */
        n = (size_t)(ratio * (double)len);
    j->compute += app_kernel_end(&j->kernel);
    for (int b = 0; b < FRAME_HEADER; b++)
        frame[b] = (unsigned char)(n >> (8 * b));
    counts[0] = (int)(n + FRAME_HEADER);
    return 0;
}

/* Rank 0: the blocks of items first .. first + items - 1 of every rank, written in block order. */
static int write_tile(int first, int items, const void *in, const int counts[], const int displs[], void *user)
{
    job *j = user;
    double start = MPI_Wtime();
    const unsigned char *bytes = in;
    if (app_kernel_sampling()) { /* sampled kernels: no streams to write, the frames' bytes counted */
        for (int r = 0; r < app_size; r++)
            j->out_bytes += counts[r];
        return 0;
    }
    long long cursor[app_size];
    for (int r = 0; r < app_size; r++)
        cursor[r] = displs[r];
    for (int i = first; i < first + items; i++)
        for (int r = 0; r < app_size; r++) {
            if (i >= items_of(j, r))
                continue;
            const unsigned char *frame = bytes + cursor[r];
            size_t n = 0;
            for (int b = 0; b < FRAME_HEADER; b++)
                n |= (size_t)frame[b] << (8 * b);
            if (cursor[r] + FRAME_HEADER + (long long)n > (long long)displs[r] + counts[r]) {
                fail_here(j, "rank %d sent a frame longer than its data (a bug)", r);
                return MPI_ERR_INTERN;
            }
            if (fwrite(frame + FRAME_HEADER, 1, n, j->out) != n) {
                fail_here(j, "--out %s: cannot write", j->out_path);
                return MPI_ERR_FILE;
            }
            j->out_bytes += (long long)n;
            cursor[r] += FRAME_HEADER + (long long)n;
        }
    j->write_time += MPI_Wtime() - start;
    return 0;
}

/* The naive scheme: every block, then the sizes and the streams gathered at once. */
static int run_blocking(job *j, double *compute, double *communication)
{
    long long items = items_of(j, app_rank);
    char *mine = app_alloc((size_t)items * j->frame_cap + 1);
    if (!mine) {
        fail_here(j, "no memory for this rank's %lld blocks", items);
        return MPI_ERR_NO_MEM;
    }
    long long size = 0;
    int rc = MPI_SUCCESS;
    for (long long i = 0; i < items && rc == MPI_SUCCESS; i++) {
        void *out[1] = {mine + size};
        int count = 0;
        rc = compress_item((int)i, out, &count, j);
        size += count;
    }
    *compute = j->compute;
    double start = MPI_Wtime();
    int my_size = rc == MPI_SUCCESS ? (int)size : 0;
    int *sizes = calloc((size_t)app_size, sizeof *sizes), *displs = calloc((size_t)app_size, sizeof *displs);
    TDM_Gather(&my_size, 1, MPI_INT, sizes, 1, MPI_INT, 0, app_comm);
    long long total = 0;
    for (int r = 0; r < app_size; r++)
        displs[r] = (int)total, total += sizes[r];
    char *all = app_rank == 0 ? app_alloc((size_t)total + 1) : NULL;
    int grc = TDM_Gatherv(mine, my_size, MPI_BYTE, all, sizes, displs, MPI_BYTE, 0, app_comm);
    *communication = MPI_Wtime() - start;
    if (rc == MPI_SUCCESS && grc != MPI_SUCCESS)
        rc = grc, fail_here(j, "gathering the streams: %s", TDM_Last_error());
    if (rc == MPI_SUCCESS && app_rank == 0)
        rc = write_tile(0, (int)items_of(j, 0), all, sizes, displs, j);
    if (all)
        app_free(all);
    free(sizes);
    free(displs);
    app_free(mine);
    return rc;
}

static void parse(job *j, int argc, char **argv)
{
    app_common *c = &j->common;
    int level = -1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (app_common_option(c, argc, argv, &i, "blocking"))
            continue;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            if (app_rank == 0)
                fputs(usage, stdout);
            app_finish();
            exit(0);
        } else if (strcmp(o, "--in") == 0) {
            j->in_path = app_value(c, argc, argv, &i);
        } else if (strcmp(o, "--out") == 0) {
            j->out_path = app_value(c, argc, argv, &i);
        } else if (strcmp(o, "--codec") == 0) {
            const char *v = app_value(c, argc, argv, &i);
            if (strcmp(v, "bzip2") != 0 && strcmp(v, "zstd") != 0)
                app_fail(c, "--codec %s: expected bzip2 or zstd", v);
            j->codec.kind = strcmp(v, "zstd") == 0 ? CODEC_ZSTD : CODEC_BZIP2;
            if (!codec_available(j->codec.kind))
                app_fail(c, "--codec %s: this build has no libzstd", v);
        } else if (strcmp(o, "--level") == 0) {
            level = (int)app_number(c, o, app_value(c, argc, argv, &i), 1, 19);
        } else if (strcmp(o, "--made-up") == 0) {
            j->made_up = (long long)app_number(c, o, app_value(c, argc, argv, &i), 0, 1L << 40);
            j->in_path = "(made up)";
        } else if (strcmp(o, "--made-up-kind") == 0) {
            const char *v = app_value(c, argc, argv, &i);
            if (strcmp(v, "text") != 0 && strcmp(v, "random") != 0)
                app_fail(c, "--made-up-kind %s: expected text or random", v);
            j->made_up_random = strcmp(v, "random") == 0;
        } else if (strcmp(o, "--block") == 0) {
            j->block = app_number(c, o, app_value(c, argc, argv, &i), 1, 64L << 20);
        } else {
            app_fail(c, "unknown option %s (see --help)", o);
        }
    }
    if (!j->in_path || !j->out_path)
        app_fail(c, "%s is missing (see --help)", !j->in_path ? "--in FILE (or --made-up BYTES)" : "--out FILE");
    if (j->made_up_random && !j->made_up)
        app_fail(c, "--made-up-kind random: needs --made-up BYTES (it says what to make up)");
    if (j->codec.kind == CODEC_BZIP2 && level > 9)
        app_fail(c, "--level %d: bzip2's levels are 1 to 9", level);
    j->codec.level = level > 0 ? level : j->codec.kind == CODEC_ZSTD ? 3 : 9;
}

/* The input, checked by rank 0 (its size sent to all), then opened by every rank. */
static void open_input(job *j)
{
    if (j->made_up || strcmp(j->in_path, "(made up)") == 0) {
        j->in_bytes = j->made_up, j->blocks = (j->made_up + j->block - 1) / j->block;
        return;
    }
    long long size = -1;
    char *message = NULL;
    if (app_rank == 0) {
        struct stat st;
        static char text[600];
        if (stat(j->in_path, &st) != 0)
            snprintf(text, sizeof text, "--in %s: cannot open: %s", j->in_path, strerror(errno)), message = text;
        else if (!S_ISREG(st.st_mode))
            snprintf(text, sizeof text, "--in %s: not a regular file", j->in_path), message = text;
        else
            size = (long long)st.st_size;
    }
    app_agree(&j->common, message);
    MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, app_comm);
    j->in_bytes = size;
    j->blocks = (size + j->block - 1) / j->block;
    j->in_fd = open(j->in_path, O_RDONLY);
    static char text[600];
    if (j->in_fd < 0)
        snprintf(text, sizeof text, "--in %s: rank %d cannot open it: %s", j->in_path, app_rank, strerror(errno));
    app_agree(&j->common, j->in_fd < 0 ? text : NULL);
    if (j->blocks > INT32_MAX / 2)
        app_fail(&j->common, "--in %s: %lld blocks; use a larger --block", j->in_path, j->blocks);
}

/* Rank 0: the output file, empty, for a run. */
static void open_output(job *j)
{
    static char text[600];
    const char *message = NULL;
    if (app_rank == 0 && !(j->out = fopen(j->out_path, "wb")))
        snprintf(text, sizeof text, "--out %s: cannot create: %s", j->out_path, strerror(errno)), message = text;
    app_agree(&j->common, message);
    j->out_bytes = 0, j->write_time = 0;
}

/* Rank 0 after a run: an empty input still makes a valid file (one stream of nothing). */
static void close_output(job *j)
{
    const char *message = NULL;
    if (app_rank == 0) {
        if (j->blocks == 0) {
            const char *ignored;
            size_t n = codec_compress(&j->codec, "", 0, j->in_block, j->frame_cap, &ignored);
            j->out_bytes += (long long)fwrite(j->in_block, 1, n, j->out);
        }
        if (fclose(j->out) != 0)
            message = "cannot finish writing --out";
    }
    app_agree(&j->common, message);
}

int main(int argc, char **argv)
{
    job j = {.block = 900000, .in_fd = -1};
    app_start(&j.common, "tandem-pcompress", &argc, &argv);
    parse(&j, argc, argv);
    open_input(&j);
    static char kernel_name[48]; /* the calibration of the codec, level and input (sampled kernels) */
    snprintf(kernel_name, sizeof kernel_name, "pcompress-%s-%d-%s", codec_name(&j.codec), j.codec.level,
             !j.made_up ? "file" : j.made_up_random ? "random" : "text");
    j.kernel.name = kernel_name;
    j.frame_cap = FRAME_HEADER + codec_bound(&j.codec, (size_t)j.block);
    j.in_block = malloc(j.frame_cap > (size_t)j.block ? j.frame_cap : (size_t)j.block);
    if (j.frame_cap > INT32_MAX / 2 || !j.in_block)
        app_fail(&j.common, "--block %ld: too large", j.block);

    TDM_Pattern pattern = NULL;
    if (j.common.pipelined) {
        TDM_Pattern_spec spec = {.kind = TDM_PATTERN_GATHERV, .comm = app_comm, .datatype = MPI_BYTE, .root = 0,
                                 .items = (int)items_of(&j, app_rank), .item_count = (int)j.frame_cap,
                                 .tile = j.common.tile, .window = j.common.window, .tune = j.common.tune,
                                 .compute = compress_item, .consume = write_tile, .user = &j};
        if (TDM_Pattern_create(&spec, &pattern) != MPI_SUCCESS)
            app_fail(&j.common, "%s", TDM_Last_error());
    }
    double *total = malloc((size_t)j.common.reps * 3 * sizeof *total), *compute = total + j.common.reps,
           *overhead = compute + j.common.reps;
    for (int rep = 0; rep < j.common.reps; rep++) {
        open_output(&j);
        MPI_Barrier(app_comm);
        double start = MPI_Wtime(), computed = 0, communicated = 0;
        j.compute = 0;
        int rc;
        if (pattern) {
            rc = TDM_Pattern_run(pattern);
            TDM_Pattern_times t;
            TDM_Pattern_get_times(pattern, &t);
            computed = j.compute, communicated = t.communication;
        } else {
            rc = run_blocking(&j, &computed, &communicated);
        }
        double took = MPI_Wtime() - start;
        if (rc != MPI_SUCCESS)
            fail_here(&j, "%s", TDM_Last_error());
        app_agree(&j.common, j.message[0] ? j.message : NULL);
        close_output(&j);
        total[rep] = app_max(took), compute[rep] = app_max(computed), overhead[rep] = app_max(communicated);
    }
    int tile = 0, window = 0;
    if (pattern)
        TDM_Pattern_get_params(pattern, &tile, &window, NULL);
    if (app_rank == 0)
        printf("tandem-pcompress: %s, %lld bytes in %lld blocks of %ld on %d ranks -> %s, %lld bytes (%s -%d)\n",
               j.in_path, j.in_bytes, j.blocks, j.block, app_size, j.out_path, j.out_bytes, codec_name(&j.codec),
               j.codec.level);
    app_table_header();
    app_table_row(&j.common, pattern ? "pipelined" : "blocking", tile, window, app_median(total, j.common.reps),
                  app_median(compute, j.common.reps), app_median(overhead, j.common.reps));
    if (pattern)
        TDM_Pattern_free(&pattern);
    free(total);
    free(j.in_block);
    if (j.in_fd >= 0)
        close(j.in_fd);
    app_finish();
    return 0;
}
