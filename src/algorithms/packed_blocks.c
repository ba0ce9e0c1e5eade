/* Moving runs of per-rank blocks between packed intermediate buffers and typed user buffers. */
#include "alg_util.h"

#include <limits.h>

typedef struct {
    int first;   /* absolute rank of the run's first block */
    int nblocks;
    int skip;    /* blocks of the packed range before this run */
} block_run;

/* Relative ranks [rel0, rel0 + n) are one run of absolute ranks, or two when they wrap past p-1. */
static int block_runs(int rel0, int n, int root, int p, block_run runs[2])
{
    int first = tdm_abs_rank(rel0, root, p);
    int len = n < p - first ? n : p - first;
    runs[0] = (block_run){first, len, 0};
    if (len == n)
        return 1;
    runs[1] = (block_run){0, n - len, len};
    return 2;
}

/* Runs longer than INT_MAX elements are moved a block at a time. */
static int blocks_per_copy(int nblocks, int count)
{
    return (long long)nblocks * count > INT_MAX ? 1 : nblocks;
}

void tdm_unpack_blocks(tdm_schedule *s, const char *packed, size_t block_bytes, int rel0, int n,
                       int root, int p, void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t)
{
    block_run runs[2];
    for (int i = 0, nruns = block_runs(rel0, n, root, p, runs); i < nruns; i++) {
        int step = blocks_per_copy(runs[i].nblocks, count);
        for (int b = 0; b < runs[i].nblocks; b += step)
            tdm_sched_copy(s, packed + (size_t)(runs[i].skip + b) * block_bytes, (int)(step * block_bytes),
                           MPI_PACKED, tdm_rank_block(buf, t, count, runs[i].first + b), step * count, type);
    }
}

void tdm_pack_blocks(tdm_schedule *s, const void *buf, int count, MPI_Datatype type,
                     const tdm_typeinfo *t, int rel0, int n, int root, int p, char *packed,
                     size_t block_bytes)
{
    block_run runs[2];
    for (int i = 0, nruns = block_runs(rel0, n, root, p, runs); i < nruns; i++) {
        int step = blocks_per_copy(runs[i].nblocks, count);
        for (int b = 0; b < runs[i].nblocks; b += step)
            tdm_sched_copy(s, tdm_rank_block(buf, t, count, runs[i].first + b), step * count, type,
                           packed + (size_t)(runs[i].skip + b) * block_bytes, (int)(step * block_bytes),
                           MPI_PACKED);
    }
}

void tdm_send_packed(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t,
                     int peer)
{
    int bytes = count * t->size;
    if (t->contiguous) {
        tdm_sched_send(s, buf, bytes, MPI_PACKED, peer);
        return;
    }
    char *packed = bytes ? tdm_sched_tmp(s, (size_t)bytes) : NULL;
    tdm_sched_copy(s, buf, count, type, packed, bytes, MPI_PACKED);
    tdm_sched_send(s, packed, bytes, MPI_PACKED, peer);
}

void *tdm_recv_packed(tdm_schedule *s, void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t,
                      int peer)
{
    (void)type;
    int bytes = count * t->size;
    char *staged = t->contiguous || !bytes ? NULL : tdm_sched_tmp(s, (size_t)bytes);
    tdm_sched_recv(s, staged ? staged : buf, bytes, MPI_PACKED, peer);
    return staged;
}

void tdm_unpack_received(tdm_schedule *s, const void *staged, void *buf, int count, MPI_Datatype type,
                         const tdm_typeinfo *t)
{
    if (staged)
        tdm_sched_copy(s, staged, count * t->size, MPI_PACKED, buf, count, type);
}
