/*
 * The multi-color bucket algorithm on an N-dimensional torus, shared by the torus_bucket forms of
 * reduce_scatter, allgather and allreduce.
 *
 * Ranks sit on a torus d_0 x ... x d_{N-1} (row-major coordinates, as MPI_Cart numbers them; lengths 1
 * are dropped). Every owner's block is split into K parts, one per sub-color: K = N colors, each
 * halved into a clockwise and an anticlockwise sub-color on a bidirectional torus (K = 2N), or one
 * direction only (K = N). Color c visits the dimensions in the order pi_c(i) = (i + c) mod N, so in
 * every phase the colors use different dimensions and all links are busy.
 *
 * Each sub-color works in its own buffer W holding every owner's part of that sub-color, ordered by
 * the owners' coordinates along pi_c(0), pi_c(1), ... (the first the most significant). Then, in
 * reduce-scatter phase i along dimension q = pi_c(i), the part still to be reduced is a contiguous
 * range of W made of d_q contiguous groups (by the owners' coordinate along q): a ring reduce-scatter
 * over the d_q ranks of that dimension leaves the rank with the group of its own coordinate, and the
 * range shrinks by d_q. The allgather runs the phases in reverse order without reductions. The steps
 * of all sub-colors run in the same rounds; a received group is reduced at the start of the next round,
 * before it is passed on. Commutative ops only: the reductions follow the rings, not rank order.
 */
#include "alg_util.h"

#include <stdlib.h>

typedef struct {
    int ndims;                      /* dimensions longer than 1 */
    int dims[TDM_TORUS_MAX_DIMS];
    int stride[TDM_TORUS_MAX_DIMS]; /* rank distance of one step along each dimension */
    int coord[TDM_TORUS_MAX_DIMS];  /* this rank's coordinates */
} torus_geometry;

/* One step of one sub-color: send a range of W to a peer, receive a range from another. */
typedef struct {
    MPI_Aint send_off, recv_off;
    int send_count, recv_count;
    int send_peer, recv_peer;
} bucket_step;

typedef struct {
    char *w;              /* the sub-color's buffer, every owner's part, in the color's order */
    char *scratch;        /* reduce-scatter: a received group before it is reduced into w */
    int *order;           /* permuted index -> owner */
    MPI_Aint *pos;        /* permuted index -> element offset in w (p + 1 entries) */
    int *part_count;      /* owner -> elements of its part of this sub-color */
    MPI_Aint *part_off;   /* owner -> offset of that part within the owner's block */
    bucket_step *rs, *ag; /* the reduce-scatter and allgather steps */
} sub_color;

static int geometry(const tdm_coll_args *a, torus_geometry *g)
{
    int dims[TDM_TORUS_MAX_DIMS], n = 0, p = 1;
    for (int i = 0; i < a->torus_ndims; i++)
        p *= a->torus_dims[i];
    if (a->torus_ndims < 1 || p != a->size) { /* no torus given: a ring */
        dims[n++] = a->size;
    } else {
        for (int i = 0; i < a->torus_ndims; i++)
            dims[n++] = a->torus_dims[i];
    }
    int stride = 1, r = a->rank;
    g->ndims = 0;
    for (int i = n - 1; i >= 0; i--) { /* row-major: the last dimension varies fastest */
        int c = (r / stride) % dims[i];
        if (dims[i] > 1) {
            for (int j = g->ndims; j > 0; j--) { /* keep the original order of the dimensions */
                g->dims[j] = g->dims[j - 1];
                g->stride[j] = g->stride[j - 1];
                g->coord[j] = g->coord[j - 1];
            }
            g->dims[0] = dims[i];
            g->stride[0] = stride;
            g->coord[0] = c;
            g->ndims++;
        }
        stride *= dims[i];
    }
    return g->ndims;
}

static int coord_of(const torus_geometry *g, int rank, int dim) { return (rank / g->stride[dim]) % g->dims[dim]; }

/* The rank whose coordinate along dim is moved by delta (cyclically) from this rank's. */
static int neighbour(const tdm_coll_args *a, const torus_geometry *g, int dim, int delta)
{
    int c = g->coord[dim], moved = ((c + delta) % g->dims[dim] + g->dims[dim]) % g->dims[dim];
    return a->rank + (moved - c) * g->stride[dim];
}

/* Dimension visited in phase i by color c. */
static int phase_dim(const torus_geometry *g, int c, int i) { return (i + c) % g->ndims; }

/* Lays out sub-color k of color c in w: owners ordered by their coordinates along the color's
 * dimension order; each owner's part is the k-th of `nsub` parts of its block. */
static int layout(tdm_schedule *s, const tdm_coll_args *a, const torus_geometry *g, const int *count, int k,
                  int nsub, int c, sub_color *sc)
{
    int p = a->size;
    sc->order = tdm_sched_tmp(s, sizeof(int) * (size_t)p);
    sc->pos = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)(p + 1));
    sc->part_count = tdm_sched_tmp(s, sizeof(int) * (size_t)p);
    sc->part_off = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)p);
    if (!sc->order || !sc->pos || !sc->part_count || !sc->part_off)
        return 0;
    for (int b = 0; b < p; b++) {
        int key = 0;
        for (int i = 0; i < g->ndims; i++) {
            int dim = phase_dim(g, c, i);
            key = key * g->dims[dim] + coord_of(g, b, dim);
        }
        sc->order[key] = b;
        sc->part_count[b] = tdm_block_count(count[b], nsub, k);
        sc->part_off[b] = tdm_block_offset(count[b], nsub, k);
    }
    sc->pos[0] = 0;
    for (int j = 0; j < p; j++)
        sc->pos[j + 1] = sc->pos[j] + sc->part_count[sc->order[j]];
    sc->w = tdm_tmp_elems(s, &a->dtype, sc->pos[p]); /* NULL if the sub-color carries nothing */
    return s->error == MPI_SUCCESS;
}

/* The steps of one sub-color: for the reduce-scatter, phases 0..N-1; for the allgather, the same
 * phases in reverse. Returns the largest group received (scratch size). */
static int plan_steps(const tdm_coll_args *a, const torus_geometry *g, int c, int dir, sub_color *sc, int nsteps)
{
    int largest = 0, u = 0;
    MPI_Aint lo = 0, len = a->size; /* the range still being reduced, in permuted owner indices */
    MPI_Aint los[TDM_TORUS_MAX_DIMS], lens[TDM_TORUS_MAX_DIMS];
    for (int i = 0; i < g->ndims; i++) {
        int dim = phase_dim(g, c, i), d = g->dims[dim], m = g->coord[dim];
        MPI_Aint group = len / d;
        los[i] = lo;
        lens[i] = len;
        int right = neighbour(a, g, dim, dir), left = neighbour(a, g, dim, -dir);
        for (int t = 0; t < d - 1; t++, u++) {
            int gs = ((m - dir * (t + 1)) % d + d) % d, gr = ((m - dir * (t + 2)) % d + d) % d;
            bucket_step *st = &sc->rs[u];
            st->send_off = sc->pos[lo + gs * group];
            st->send_count = (int)(sc->pos[lo + (gs + 1) * group] - st->send_off);
            st->recv_off = sc->pos[lo + gr * group];
            st->recv_count = (int)(sc->pos[lo + (gr + 1) * group] - st->recv_off);
            st->send_peer = right;
            st->recv_peer = left;
            largest = st->recv_count > largest ? st->recv_count : largest;
        }
        lo += m * group;
        len = group;
    }
    /* allgather: phase i in reverse; before it the rank holds group m of the range of phase i */
    u = 0;
    for (int i = g->ndims - 1; i >= 0; i--) {
        int dim = phase_dim(g, c, i), d = g->dims[dim], m = g->coord[dim];
        MPI_Aint group = lens[i] / d;
        int right = neighbour(a, g, dim, dir), left = neighbour(a, g, dim, -dir);
        for (int t = 0; t < d - 1; t++, u++) {
            int gs = ((m - dir * t) % d + d) % d, gr = ((m - dir * (t + 1)) % d + d) % d;
            bucket_step *st = &sc->ag[u];
            st->send_off = sc->pos[los[i] + gs * group];
            st->send_count = (int)(sc->pos[los[i] + (gs + 1) * group] - st->send_off);
            st->recv_off = sc->pos[los[i] + gr * group];
            st->recv_count = (int)(sc->pos[los[i] + (gr + 1) * group] - st->recv_off);
            st->send_peer = right;
            st->recv_peer = left;
        }
    }
    (void)nsteps;
    return largest;
}

int tdm_torus_bucket(tdm_schedule *s, const tdm_coll_args *a, tdm_torus_bucket_op op, int bidirectional,
                     const void *input, const MPI_Aint *offset, const int *count, void *out)
{
    const tdm_typeinfo *t = &a->dtype;
    MPI_Datatype type = a->datatype;
    torus_geometry g;
    if (geometry(a, &g) == 0) { /* one rank */
        if (op != TDM_TORUS_ALLGATHER && input != out)
            tdm_sched_copy(s, tdm_elem(input, t, offset[0]), count[0], type, tdm_elem(out, t, offset[0]), count[0], type);
        return tdm_sched_finish(s);
    }
    int ndirs = bidirectional ? 2 : 1, nsub = g.ndims * ndirs, nsteps = 0, p = a->size, me = a->rank;
    s->torus_ndims = g.ndims; /* for the dump: the dimensions longer than 1 */
    for (int i = 0; i < g.ndims && i < 8; i++)
        s->torus_dims[i] = g.dims[i];
    s->torus_bidirectional = bidirectional;
    for (int i = 0; i < g.ndims; i++)
        nsteps += g.dims[i] - 1;
    sub_color *subs = tdm_sched_tmp(s, sizeof(sub_color) * (size_t)nsub);
    if (!subs)
        return tdm_sched_finish(s); /* out of memory: recorded in s->error */
    for (int k = 0; k < nsub; k++) {
        sub_color *sc = &subs[k];
        int c = k / ndirs, dir = k % ndirs ? -1 : 1;
        sc->rs = tdm_sched_tmp(s, sizeof(bucket_step) * (size_t)nsteps);
        sc->ag = tdm_sched_tmp(s, sizeof(bucket_step) * (size_t)nsteps);
        if (!sc->rs || !sc->ag || !layout(s, a, &g, count, k, nsub, c, sc))
            return tdm_sched_finish(s); /* out of memory: recorded in s->error */
        int largest = plan_steps(a, &g, c, dir, sc, nsteps);
        sc->scratch = op == TDM_TORUS_ALLGATHER ? NULL : tdm_tmp_elems(s, t, largest);
    }

    /* into the sub-colors' buffers: every owner's part (reductions) or the own part (allgather) */
    for (int k = 0; k < nsub; k++) {
        sub_color *sc = &subs[k];
        for (int j = 0; j < p; j++) {
            int b = sc->order[j];
            if (op == TDM_TORUS_ALLGATHER && b != me)
                continue;
            tdm_sched_copy(s, tdm_elem(input, t, offset[b] + sc->part_off[b]), sc->part_count[b], type,
                           tdm_elem(sc->w, t, sc->pos[j]), sc->part_count[b], type);
        }
    }
    if (op != TDM_TORUS_ALLGATHER) { /* reduce-scatter phases */
        for (int u = 0; u <= nsteps; u++) {
            for (int k = 0; k < nsub; k++) {
                sub_color *sc = &subs[k];
                if (u > 0) { /* the group received last round, before it travels on */
                    const bucket_step *prev = &sc->rs[u - 1];
                    tdm_sched_reduce(s, sc->scratch, tdm_elem(sc->w, t, prev->recv_off), prev->recv_count, type,
                                     a->op);
                }
                if (u < nsteps) {
                    const bucket_step *st = &sc->rs[u];
                    tdm_sched_send(s, tdm_elem(sc->w, t, st->send_off), st->send_count, type, st->send_peer);
                    tdm_sched_recv(s, sc->scratch, st->recv_count, type, st->recv_peer);
                }
            }
            tdm_sched_round(s);
        }
    }
    if (op != TDM_TORUS_REDUCE_SCATTER) { /* allgather phases */
        for (int u = 0; u < nsteps; u++) {
            for (int k = 0; k < nsub; k++) {
                const bucket_step *st = &subs[k].ag[u];
                tdm_sched_send(s, tdm_elem(subs[k].w, t, st->send_off), st->send_count, type, st->send_peer);
                tdm_sched_recv(s, tdm_elem(subs[k].w, t, st->recv_off), st->recv_count, type, st->recv_peer);
            }
            tdm_sched_round(s);
        }
    }
    /* out of the buffers: the own part (reduce-scatter) or every owner's part */
    for (int k = 0; k < nsub; k++) {
        sub_color *sc = &subs[k];
        for (int j = 0; j < p; j++) {
            int b = sc->order[j];
            if (op == TDM_TORUS_REDUCE_SCATTER && b != me)
                continue;
            MPI_Aint at = op == TDM_TORUS_REDUCE_SCATTER ? sc->part_off[b] : offset[b] + sc->part_off[b];
            tdm_sched_copy(s, tdm_elem(sc->w, t, sc->pos[j]), sc->part_count[b], type, tdm_elem(out, t, at),
                           sc->part_count[b], type);
        }
    }
    return tdm_sched_finish(s);
}
