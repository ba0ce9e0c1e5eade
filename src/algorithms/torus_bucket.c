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
 * the owners' coordinates along pi_c(0), pi_c(1), ... (the first the most significant). For the
 * reduce-scatter and the allgather, whose blocks are the ranks', W is a temporary filled from and
 * emptied into the user's buffers. The allreduce's result is only the whole vector, so its parts need
 * not be cut from rank blocks: sub-color k takes the k-th contiguous region of the vector, cut into p
 * parts in the color's order, and W is that region of the output itself (nothing staged). Then, in
 * reduce-scatter phase i along dimension q = pi_c(i), the part still to be reduced is a contiguous
 * range of W made of d_q contiguous groups (by the owners' coordinate along q): a ring reduce-scatter
 * over the d_q ranks of that dimension leaves the rank with the group of its own coordinate, and the
 * range shrinks by d_q. The allgather runs the phases in reverse order without reductions. The steps
 * of all sub-colors run in the same rounds; a received group is reduced at the start of the next round,
 * before it is passed on. Commutative ops only: the reductions follow the rings, not rank order.
 *
 * Halfway (allgather only): the two directions of a color share its buffer W and every part, and each
 * part goes the shorter way round each ring: in a ring of d the clockwise sub-color brings the groups
 * 1 .. d/2 places to the left, the anticlockwise one those to the right, and when d is even each
 * brings half of the opposite group. A ring then takes d/2 steps instead of d - 1, with the same bytes
 * on every link (each direction carries (d - 1)/2 groups either way), which halves the start-ups that
 * bound the phases whose messages are short (16x16x16: 24 steps instead of 45).
 *
 * Chains: the rounds of a schedule advance in lock-step, so every step pays a message's start-up
 * (alpha) with its links idle. With C chains each sub-color is cut into C (K = C chains x 2N sub-colors),
 * and the chains of a sub-color run in different lanes, independent schedules: while one chain's
 * message starts up, another's fills the link (on SimGrid's 8x8x8 torus, the 8 MiB allgather 1.15 ->
 * 1.07 of its bandwidth bound with 2 chains).
 */
#include "alg_util.h"

#include <stdlib.h>
#include <string.h>

/* Chains when the size asks for them (TANDEM_BUCKET_CHAINS unset): two already keep a link busy while
 * the other chain's message starts up (SimGrid, 4x4x4 and 8x8x8); three and four were slower (8x8x8,
 * allgather of 8 MiB: 149.8 us with two, 153.6 with three, 159.9 with four). */
#define TDM_BUCKET_AUTO_CHAINS 2

typedef struct {
    int ndims;                      /* dimensions longer than 1 */
    int dims[TDM_TORUS_MAX_DIMS];
    int stride[TDM_TORUS_MAX_DIMS]; /* rank distance of one step along each dimension */
    int coord[TDM_TORUS_MAX_DIMS];  /* this rank's coordinates */
} torus_geometry;

/* One step of one sub-color: the range of w it sends and the range it receives. */
typedef struct {
    MPI_Aint send_off, recv_off;
    int send_count, recv_count;
} bucket_step;

/* One phase of one sub-color: a ring along one dimension. */
typedef struct {
    int steps;            /* d - 1 */
    int first_step;       /* its first step in the sub-color's rs (or ag) array */
    int nseg;             /* segments per message, the same on every rank */
    MPI_Aint largest;     /* the largest message of the phase on any rank (elements) */
    int right, left, link;
} bucket_phase;

typedef struct {
    char *w;              /* the sub-color's buffer, every owner's part, in the color's order */
    MPI_Aint region_off;  /* allreduce: where the sub-color's region (its w) starts in the vector */
    const char *fresh;    /* the input, which the first reduce-scatter phase reads instead of a copy of it
                             in w (NULL: allgather, allreduce in place) */
    MPI_Aint *fresh_off;  /* permuted index -> element offset in fresh of that owner's part */
    MPI_Aint *home_off;   /* allgather on a ring: permuted index -> element offset of the owner's part in
                             the output, which then is w (w points at the output); NULL otherwise */
    char *scratch[2];     /* reduce-scatter: received segments before they are reduced into w */
    int flip;             /* which scratch buffer the next receive uses */
    MPI_Aint pending_off; /* reduce-scatter: the segment received last round, still to be reduced */
    int pending_count;
    const char *pending_src; /* reduced with: its scratch buffer, its range of w, or NULL: the input's copy */
    char *pending_dst;       /* where: its range of w, or the output */
    char *result;         /* reduce-scatter out of place: where the own part's result goes, received there
                             in the last phase (no copy out of w); NULL otherwise */
    MPI_Aint own_off, own_end; /* the own part's range of w (reduce-scatter, allgather) */
    int follower;         /* halfway: the anticlockwise sub-color, which uses its clockwise partner's w
                             and leaves the copies into and out of w to it */
    int pair;             /* halfway: the color and chain both partners carry */
    int *order;           /* permuted index -> owner */
    MPI_Aint *pos;        /* permuted index -> element offset in w (p + 1 entries) */
    int *part_count;      /* owner -> elements of its part of this sub-color */
    MPI_Aint *part_off;   /* owner -> offset of that part within the owner's block */
    bucket_step *rs, *ag; /* the reduce-scatter and allgather steps, phase after phase */
    bucket_phase rs_phase[TDM_TORUS_MAX_DIMS], ag_phase[TDM_TORUS_MAX_DIMS];
} sub_color;

/* What one sub-color does in one round: send one segment, receive one. */
typedef struct {
    int active;
    int first_step;       /* of its phase: what it sends was not received before */
    MPI_Aint send_off, recv_off;
    int send_count, recv_count, send_peer, recv_peer, link;
} bucket_unit;

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

/* A sub-color's plan (its layout, steps and offsets) serves only to build the schedule, whose actions
 * hold what the engine needs: it lives on the heap and goes when the builder returns (every lane plans
 * every sub-color to cut the same segments, and drops the other lanes' at once). Arrays of p entries
 * per sub-color, kept with the schedule, took 0.1-0.2 MB per rank at 4096 ranks. */
static void free_plan(sub_color *sc)
{
    free(sc->order), free(sc->pos), free(sc->part_count), free(sc->part_off), free(sc->rs), free(sc->ag);
    free(sc->home_off), free(sc->fresh_off);
    sc->order = sc->part_count = NULL;
    sc->pos = sc->part_off = sc->home_off = sc->fresh_off = NULL;
    sc->rs = sc->ag = NULL;
}

/* Ends a build: the plans of subs[0 .. nplanned) go (see free_plan). */
static int finish_build(tdm_schedule *s, sub_color *subs, int nplanned)
{
    for (int k = 0; k < nplanned; k++)
        free_plan(&subs[k]);
    return tdm_sched_finish(s);
}

/* Lays out sub-color k of color c in w (placed later, for the lane's sub-colors only): owners ordered
 * by their coordinates along the color's dimension order; each owner's part is the k-th of `nsub` parts
 * of its block, or for an allreduce the next of p even parts of the sub-color's region of the vector. */
static int layout(const tdm_coll_args *a, const torus_geometry *g, tdm_torus_bucket_op op, const int *count,
                  int k, int nsub, int c, sub_color *sc)
{
    int p = a->size;
    if (op == TDM_TORUS_ALLREDUCE) {
        MPI_Aint n = 0;
        for (int b = 0; b < p; b++)
            n += count[b];
        int region = tdm_block_count((int)n, nsub, k);
        sc->region_off = tdm_block_offset((int)n, nsub, k);
        if (!(sc->pos = malloc(sizeof(MPI_Aint) * (size_t)(p + 1))))
            return 0;
        for (int j = 0; j <= p; j++)
            sc->pos[j] = tdm_block_offset(region, p, j);
        return 1;
    }
    sc->order = malloc(sizeof(int) * (size_t)p);
    sc->pos = malloc(sizeof(MPI_Aint) * (size_t)(p + 1));
    sc->part_count = malloc(sizeof(int) * (size_t)p);
    sc->part_off = malloc(sizeof(MPI_Aint) * (size_t)p);
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
    return 1;
}

/* The largest group (elements) of any rank in a phase whose ranges have len owners, in groups of
 * len / d: the same on every rank, so that all ranks cut their messages into the same segments. */
static MPI_Aint largest_group(const sub_color *sc, int p, MPI_Aint len, int d)
{
    MPI_Aint group = len / d, largest = 0;
    for (MPI_Aint j = 0; j + group <= p; j += group)
        if (sc->pos[j + group] - sc->pos[j] > largest)
            largest = sc->pos[j + group] - sc->pos[j];
    return largest;
}

/* Halfway, the last step of an even ring: the clockwise sub-color moves the first half of the group,
 * the anticlockwise one the rest. Sender and receiver cut the same group, so they agree. */
static void halve_range(MPI_Aint *off, int *count, int dir)
{
    int first = *count / 2;
    if (dir > 0) {
        *count = first;
    } else {
        *off += first;
        *count -= first;
    }
}

static void halve(bucket_step *st, int dir)
{
    halve_range(&st->send_off, &st->send_count, dir);
    halve_range(&st->recv_off, &st->recv_count, dir);
}

/* The phases and steps of one sub-color: for the reduce-scatter, phases 0..N-1; for the allgather, the
 * same phases in reverse. Segments are cut later (cut_segments). */
static void plan_steps(const tdm_coll_args *a, const torus_geometry *g, int c, int dir, int halfway, sub_color *sc)
{
    int u = 0, n = g->ndims;
    MPI_Aint lo = 0, len = a->size; /* the range still being reduced, in owner indices */
    MPI_Aint los[TDM_TORUS_MAX_DIMS], lens[TDM_TORUS_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int dim = phase_dim(g, c, i), d = g->dims[dim], m = g->coord[dim];
        MPI_Aint group = len / d;
        bucket_phase *ph = &sc->rs_phase[i];
        ph->steps = d - 1;
        ph->first_step = u;
        ph->largest = largest_group(sc, a->size, len, d);
        ph->right = neighbour(a, g, dim, dir);
        ph->left = neighbour(a, g, dim, -dir);
        ph->link = 2 * dim + (dir < 0);
        sc->ag_phase[n - 1 - i] = *ph;
        los[i] = lo;
        lens[i] = len;
        for (int t = 0; t < d - 1; t++, u++) {
            int gs = ((m - dir * (t + 1)) % d + d) % d, gr = ((m - dir * (t + 2)) % d + d) % d;
            bucket_step *st = &sc->rs[u];
            st->send_off = sc->pos[lo + gs * group];
            st->send_count = (int)(sc->pos[lo + (gs + 1) * group] - st->send_off);
            st->recv_off = sc->pos[lo + gr * group];
            st->recv_count = (int)(sc->pos[lo + (gr + 1) * group] - st->recv_off);
        }
        lo += m * group;
        len = group;
    }
    /* allgather: phase i in reverse; before it the rank holds group m of the range of phase i */
    u = 0;
    for (int i = n - 1; i >= 0; i--) {
        int dim = phase_dim(g, c, i), d = g->dims[dim], m = g->coord[dim];
        MPI_Aint group = lens[i] / d;
        int steps = halfway ? d / 2 : d - 1;
        sc->ag_phase[n - 1 - i].first_step = u;
        sc->ag_phase[n - 1 - i].steps = steps;
        for (int t = 0; t < steps; t++, u++) {
            int gs = ((m - dir * t) % d + d) % d, gr = ((m - dir * (t + 1)) % d + d) % d;
            bucket_step *st = &sc->ag[u];
            st->send_off = sc->pos[los[i] + gs * group];
            st->send_count = (int)(sc->pos[los[i] + (gs + 1) * group] - st->send_off);
            st->recv_off = sc->pos[los[i] + gr * group];
            st->recv_count = (int)(sc->pos[los[i] + (gr + 1) * group] - st->recv_off);
            if (halfway && d % 2 == 0 && t == steps - 1) /* the group opposite the receiver: half each way */
                halve(st, dir);
        }
    }
}

/*
 * Segments of every phase: of TANDEM_SEGMENT_BYTES if set; else the model's count for the color with
 * the smallest messages, and segments of that size for the others. Rounds advance in step, so equal
 * segments keep every link busy: a color with long messages (a short dimension) sends more segments,
 * and a phase takes what its busiest link carries, (d - 1)/d of the data, not the sum over rounds of
 * the largest message. Returns the largest reduce-scatter segment (scratch size).
 */
static MPI_Aint cut_segments(const tdm_coll_args *a, sub_color *subs, int nsub, int ndims)
{
    MPI_Aint largest_segment = 0;
    for (int half = 0; half < 2; half++) {
        for (int i = 0; i < ndims; i++) {
            MPI_Aint unit = 0; /* the segment size of the phase, elements */
            for (int k = 0; k < nsub; k++) {
                const bucket_phase *ph = half ? &subs[k].ag_phase[i] : &subs[k].rs_phase[i];
                if (ph->largest > 0 && (unit == 0 || ph->largest < unit))
                    unit = ph->largest;
            }
            if (unit > 0 && a->segment_bytes == 0)
                unit = (unit + tdm_segments(a, unit, !half) - 1) / tdm_segments(a, unit, !half);
            for (int k = 0; k < nsub; k++) {
                bucket_phase *ph = half ? &subs[k].ag_phase[i] : &subs[k].rs_phase[i];
                /* to the nearest count: parts of an uneven vector differ by an element, and rounding
                 * up would cut a message one element longer than the unit in two, doubling the rounds
                 * of its phase */
                ph->nseg = a->segment_bytes > 0 ? tdm_segments(a, ph->largest, !half)
                           : unit > 0          ? (int)((ph->largest + unit / 2) / unit)
                                               : 1;
                if (ph->nseg < 1)
                    ph->nseg = 1;
                MPI_Aint segment = (ph->largest + ph->nseg - 1) / ph->nseg;
                if (!half && segment > largest_segment)
                    largest_segment = segment;
            }
        }
    }
    return largest_segment;
}

/* Unit v of a phase: segment v % nseg of step v / nseg, if the sub-color's phase has that many. */
static bucket_unit unit_of(const bucket_phase *ph, const bucket_step *steps, int v)
{
    bucket_unit un = {0};
    if (v >= ph->steps * ph->nseg)
        return un;
    const bucket_step *st = &steps[ph->first_step + v / ph->nseg];
    int k = v % ph->nseg;
    un.active = 1;
    un.first_step = v / ph->nseg == 0;
    un.send_off = st->send_off + tdm_block_offset(st->send_count, ph->nseg, k);
    un.send_count = tdm_block_count(st->send_count, ph->nseg, k);
    un.recv_off = st->recv_off + tdm_block_offset(st->recv_count, ph->nseg, k);
    un.recv_count = tdm_block_count(st->recv_count, ph->nseg, k);
    un.send_peer = ph->right;
    un.recv_peer = ph->left;
    un.link = ph->link;
    return un;
}

static int overlaps(MPI_Aint a_off, int a_count, MPI_Aint b_off, int b_count)
{
    return a_count > 0 && b_count > 0 && a_off < b_off + b_count && b_off < a_off + a_count;
}

/* The longest run of w's range [off, end) from off that a buffer holding each owner's part at
 * part_at[index] (elements) holds contiguously: its length, and at its offset there. Owners whose parts
 * are adjacent there too make one run (always in an allreduce, whose w is a region of the vector). */
static MPI_Aint run_in(const sub_color *sc, const MPI_Aint *part_at, int p, MPI_Aint off, MPI_Aint end,
                       MPI_Aint *at)
{
    int j = 0, hi = p - 1; /* the owner index holding off: the last with pos[j] <= off */
    while (j < hi) {
        int mid = (j + hi + 1) / 2;
        if (sc->pos[mid] <= off)
            j = mid;
        else
            hi = mid - 1;
    }
    *at = part_at[j] + (off - sc->pos[j]);
    MPI_Aint len = sc->pos[j + 1] - off;
    for (; off + len < end && j + 1 < p && part_at[j + 1] == *at + len; j++)
        len += sc->pos[j + 2] - sc->pos[j + 1];
    return len < end - off ? len : end - off;
}

static MPI_Aint fresh_run(const sub_color *sc, int p, MPI_Aint off, MPI_Aint end, MPI_Aint *at)
{
    return run_in(sc, sc->fresh_off, p, off, end, at);
}

/* Where w's range from off is: in w, or in the output for an allgather whose every message is one
 * owner's part (on a ring: no w at all). */
static char *w_at(const tdm_coll_args *a, const sub_color *sc, MPI_Aint off)
{
    if (!sc->home_off)
        return tdm_elem(sc->w, &a->dtype, off);
    MPI_Aint at;
    run_in(sc, sc->home_off, a->size, off, off + 1, &at);
    return tdm_elem(sc->w, &a->dtype, at);
}

/* The input's copy of w's range [off, off + count) reduced into dst (count elements), a run at a time. */
static void reduce_fresh(tdm_schedule *s, const tdm_coll_args *a, const sub_color *sc, MPI_Aint off, int count,
                         char *dst)
{
    const tdm_typeinfo *t = &a->dtype;
    MPI_Aint at, len;
    for (MPI_Aint from = off, end = off + count; from < end; from += len) {
        len = fresh_run(sc, a->size, from, end, &at);
        tdm_sched_reduce(s, tdm_elem(sc->fresh, t, at), tdm_elem(dst, t, from - off), (int)len, a->datatype, a->op);
    }
}

/* A unit's send. The first step of the first reduce-scatter phase sends input nothing was reduced into:
 * from the input itself if it holds the range in one run, else from w after copying the runs there. */
static void send_unit(tdm_schedule *s, const tdm_coll_args *a, const sub_color *sc, const bucket_unit *un,
                      int first_phase)
{
    const tdm_typeinfo *t = &a->dtype;
    const void *from = w_at(a, sc, un->send_off);
    if (first_phase && un->first_step && sc->fresh) {
        MPI_Aint at, len, end = un->send_off + un->send_count;
        if (fresh_run(sc, a->size, un->send_off, end, &at) == un->send_count) {
            from = tdm_elem(sc->fresh, t, at);
        } else {
            for (MPI_Aint off = un->send_off; off < end; off += len) {
                len = fresh_run(sc, a->size, off, end, &at);
                tdm_sched_copy(s, tdm_elem(sc->fresh, t, at), (int)len, a->datatype, tdm_elem(sc->w, t, off), (int)len,
                               a->datatype);
            }
        }
    }
    tdm_sched_send_on_link(s, from, un->send_count, a->datatype, un->send_peer, un->link);
}

/* Where a unit's message lands, and for a reduce-scatter unit the reduction it leaves for the next
 * round: dst = src op received, src NULL for the input's copy of the range (fresh). */
typedef struct {
    char *into;
    const char *src;
    char *dst;
} landing;

static landing land(const tdm_coll_args *a, sub_color *sc, const bucket_unit *un, int reduce, int first_phase,
                    int last_phase)
{
    const tdm_typeinfo *t = &a->dtype;
    char *in_w = w_at(a, sc, un->recv_off);
    landing l = {in_w, in_w, in_w};
    if (!reduce)
        return l; /* allgather: into w, nothing to reduce */
    int fresh = first_phase && sc->fresh;
    if (last_phase && sc->result && un->recv_count > 0 && un->recv_off >= sc->own_off &&
        un->recv_off + un->recv_count <= sc->own_end) { /* the rank's own result: into the output */
        l.into = l.dst = tdm_elem(sc->result, t, un->recv_off - sc->own_off);
        l.src = fresh ? NULL : in_w;
    } else if (fresh) { /* into w, the input reduced into it */
        l.src = NULL;
    } else { /* into scratch, reduced into w */
        l.into = sc->scratch[sc->flip];
        l.src = l.into;
        sc->flip ^= 1;
    }
    return l;
}

/*
 * One round of every sub-color. Receives are posted first; then the sends whose data is final; then
 * last round's segments are reduced, which overlaps the messages in flight; then the sends that needed
 * those reductions. Messages between two ranks match in the order they are posted (one tag per call),
 * so a send that waits also holds back the later sub-colors' sends to the same peer. Reduce-scatter
 * units receive into scratch and leave a pending reduction; in the first phase (sub-colors with fresh
 * input) they receive into w and reduce the input into it, and the first step sends the input itself
 * (send_unit): w is never filled with a copy of the input, as in the ring allreduce.
 */
static void emit_round(tdm_schedule *s, const tdm_coll_args *a, sub_color *subs, int nsub, const bucket_unit *units,
                       int reduce, int first_phase, int last_phase)
{
    MPI_Datatype type = a->datatype;
    int held[2 * TDM_TORUS_MAX_DIMS], nheld = 0, deferred[2 * TDM_TORUS_MAX_DIMS];
    landing lands[2 * TDM_TORUS_MAX_DIMS];
    for (int k = 0; k < nsub; k++) {
        const bucket_unit *un = &units[k];
        if (un->active) {
            lands[k] = land(a, &subs[k], un, reduce, first_phase, last_phase);
            tdm_sched_recv(s, lands[k].into, un->recv_count, type, un->recv_peer);
        }
    }
    for (int k = 0; k < nsub; k++) {
        const bucket_unit *un = &units[k];
        sub_color *sc = &subs[k];
        deferred[k] = 0;
        if (!un->active || un->send_count == 0)
            continue;
        int wait = overlaps(un->send_off, un->send_count, sc->pending_off, sc->pending_count);
        for (int h = 0; h < nheld && !wait; h++)
            wait = held[h] == un->send_peer;
        if (wait) {
            deferred[k] = 1;
            held[nheld++] = un->send_peer;
        } else {
            send_unit(s, a, sc, un, first_phase);
        }
    }
    for (int k = 0; k < nsub; k++) {
        const bucket_unit *un = &units[k];
        sub_color *sc = &subs[k];
        if (sc->pending_count > 0 && sc->pending_src)
            tdm_sched_reduce(s, sc->pending_src, sc->pending_dst, sc->pending_count, type, a->op);
        else if (sc->pending_count > 0)
            reduce_fresh(s, a, sc, sc->pending_off, sc->pending_count, sc->pending_dst);
        sc->pending_count = 0;
        if (deferred[k])
            send_unit(s, a, sc, un, first_phase);
        if (un->active && reduce) {
            sc->pending_off = un->recv_off;
            sc->pending_count = un->recv_count;
            sc->pending_src = lands[k].src;
            sc->pending_dst = lands[k].dst;
        }
    }
    tdm_sched_round(s);
}

/* The phases of all sub-colors in step: phase i of every color runs in the same rounds (so that no
 * two colors share a dimension), as many as its longest ring needs. */
static void emit_phases(tdm_schedule *s, const tdm_coll_args *a, const torus_geometry *g, sub_color *subs, int nsub,
                        int reduce, bucket_unit *units)
{
    for (int i = 0; i < g->ndims; i++) {
        int rounds = 0;
        for (int k = 0; k < nsub; k++) {
            const bucket_phase *ph = reduce ? &subs[k].rs_phase[i] : &subs[k].ag_phase[i];
            rounds = ph->steps * ph->nseg > rounds ? ph->steps * ph->nseg : rounds;
        }
        for (int v = 0; v < rounds; v++) {
            for (int k = 0; k < nsub; k++)
                units[k] = reduce ? unit_of(&subs[k].rs_phase[i], subs[k].rs, v) : unit_of(&subs[k].ag_phase[i], subs[k].ag, v);
            emit_round(s, a, subs, nsub, units, reduce, reduce && i == 0, reduce && i == g->ndims - 1);
        }
    }
}

/* The vector's bytes (the whole result of an allgather or allreduce, the whole input of a reduce-scatter). */
static double vector_bytes(const tdm_coll_args *a, tdm_torus_bucket_op op)
{
    if (op == TDM_TORUS_ALLGATHER)
        return (double)a->recvcount * a->size * (double)a->rtype.size;
    if (op == TDM_TORUS_ALLREDUCE)
        return (double)a->count * (double)a->dtype.size;
    double n = 0;
    for (int b = 0; b < a->size; b++)
        n += a->recvcounts ? a->recvcounts[b] : a->count; /* reduce_scatter_block: a->count per block */
    return n * (double)a->dtype.size;
}

/* Chains (see the top): TANDEM_BUCKET_CHAINS, else TDM_BUCKET_AUTO_CHAINS on a torus that is the
 * network's (TANDEM_TORUS_DIMS) when a chain's average message still takes a start-up's time on the link
 * (each chain adds a message per step, which costs the overheads that alpha includes), else 1. Only
 * links idle through start-ups: on a torus that merely arranges the ranks (a Cartesian topology, a
 * factorization), such as two ranks of one node, chains only add messages and lanes (2 ranks here,
 * torus_bucket forced, 2 chains: allgather of 16 MiB 1.10 -> 1.47x native, allreduce of 1 MiB 0.76 ->
 * 1.28x). One chain for an in-place reduce-scatter, which runs in one lane. */
static int chains_of(const tdm_coll_args *a, tdm_torus_bucket_op op, const torus_geometry *g, int nbase)
{
    if (op == TDM_TORUS_REDUCE_SCATTER && a->in_place)
        return 1;
    if (a->bucket_chains > 0)
        return a->bucket_chains;
    if (!a->torus_network)
        return 1;
    int steps = 0;
    for (int i = 0; i < g->ndims; i++)
        steps += g->dims[i] - 1;
    double message = vector_bytes(a, op) / nbase / (steps > 0 ? steps : 1);
    return message / TDM_BUCKET_AUTO_CHAINS * a->loggp.beta >= a->loggp.alpha ? TDM_BUCKET_AUTO_CHAINS : 1;
}

int tdm_torus_bucket_lanes(const tdm_coll_args *a, tdm_torus_bucket_op op, tdm_bucket_form form, int threads,
                           int *per_thread)
{
    torus_geometry g;
    int ncolors = geometry(a, &g), nbase = ncolors * (form == TDM_BUCKET_UNIDIRECTIONAL ? 1 : 2); /* of one chain */
    *per_thread = 1;
    if (nbase < 1 || (op == TDM_TORUS_REDUCE_SCATTER && a->in_place))
        return 1;
    int chains = chains_of(a, op, &g, nbase);
    if (chains > TDM_MAX_LANES)
        chains = TDM_MAX_LANES;
    /* a thread drives whole sub-colors (halfway: whole colors), every chain of them: lanes t*C .. t*C+C-1 */
    int units = form == TDM_BUCKET_HALFWAY ? ncolors : nbase;
    threads = threads < 1 ? 1 : threads < units ? threads : units;
    if (threads * chains > TDM_MAX_LANES)
        threads = TDM_MAX_LANES / chains;
    *per_thread = chains;
    return threads * chains;
}

/* The lane of sub-color k (base k / chains: color and direction; chain k % chains): k mod lanes, so that
 * a thread's lanes t*C .. t*C+C-1 hold whole sub-colors. Halfway, the two directions of a color share
 * its buffer, so they share a lane too. */
static int lane_of(int k, int chains, int lanes, int halfway)
{
    int unit = halfway ? k / chains / 2 : k / chains;
    return (unit * chains + k % chains) % lanes;
}

/* Halfway: the clockwise partner of the follower subs[k], kept before it (same lane, lower index). */
static const sub_color *partner_of(const sub_color *subs, int k)
{
    int j = k - 1;
    while (j > 0 && (subs[j].follower || subs[j].pair != subs[k].pair))
        j--;
    return &subs[j];
}

/* Keeps the sub-colors of this build's lane, in order; returns how many. Segments were cut over all
 * sub-colors, so every lane keeps the one-lane segment sizes. */
static int keep_lane(const tdm_coll_args *a, sub_color *subs, int nsub, int chains, int halfway)
{
    if (a->lanes <= 1)
        return nsub;
    int kept = 0;
    for (int k = 0; k < nsub; k++)
        if (lane_of(k, chains, a->lanes, halfway) == a->lane)
            subs[kept++] = subs[k];
    return kept;
}

int tdm_torus_bucket(tdm_schedule *s, const tdm_coll_args *a, tdm_torus_bucket_op op, tdm_bucket_form form,
                     const void *input, const MPI_Aint *input_offset, const MPI_Aint *offset, const int *count,
                     void *out)
{
    const tdm_typeinfo *t = &a->dtype;
    MPI_Datatype type = a->datatype;
    torus_geometry g;
    if (geometry(a, &g) == 0) { /* one rank */
        if (input != out || input_offset[0] != offset[0])
            tdm_sched_copy(s, tdm_elem(input, t, input_offset[0]), count[0], type, tdm_elem(out, t, offset[0]), count[0],
                           type);
        return tdm_sched_finish(s);
    }
    if (form == TDM_BUCKET_HALFWAY && op != TDM_TORUS_ALLGATHER) {
        s->error = MPI_ERR_INTERN; /* only the allgather's parts can go either way */
        return tdm_sched_finish(s);
    }
    int halfway = form == TDM_BUCKET_HALFWAY, ndirs = form == TDM_BUCKET_UNIDIRECTIONAL ? 1 : 2;
    int nbase = g.ndims * ndirs, chains = chains_of(a, op, &g, nbase);
    int nsub = nbase * chains, nsteps = 0, p = a->size, me = a->rank;
    s->torus_ndims = g.ndims; /* for the dump: the dimensions longer than 1 */
    for (int i = 0; i < g.ndims && i < 8; i++)
        s->torus_dims[i] = g.dims[i];
    s->torus_form = (int)form;
    for (int i = 0; i < g.ndims; i++)
        nsteps += g.dims[i] - 1;
    sub_color *subs = tdm_sched_tmp(s, sizeof(sub_color) * (size_t)nsub);
    if (!subs)
        return tdm_sched_finish(s); /* out of memory: recorded in s->error */
    memset(subs, 0, sizeof(sub_color) * (size_t)nsub); /* fields an operation does not use stay NULL */
    bucket_unit *units = tdm_sched_tmp(s, sizeof(bucket_unit) * (size_t)nsub);
    if (!units)
        return tdm_sched_finish(s);
    for (int k = 0; k < nsub; k++) {
        sub_color *sc = &subs[k];
        int base = k / chains, c = base / ndirs, dir = base % ndirs ? -1 : 1; /* chain k % chains */
        int kept = a->lanes <= 1 || lane_of(k, chains, a->lanes, halfway) == a->lane;
        /* halfway, both directions of a color and chain carry the same parts */
        sc->pair = halfway ? c * chains + k % chains : k;
        sc->follower = halfway && dir < 0;
        sc->rs = malloc(sizeof(bucket_step) * (size_t)nsteps);
        sc->ag = malloc(sizeof(bucket_step) * (size_t)nsteps);
        int laid = sc->rs && sc->ag && layout(a, &g, op, count, sc->pair, halfway ? nsub / 2 : nsub, c, sc);
        if (laid)
            plan_steps(a, &g, c, dir, halfway, sc);
        if (!kept)
            free_plan(sc);
        if (!laid) {
            s->error = MPI_ERR_NO_MEM;
            return finish_build(s, subs, k + 1);
        }
    }
    MPI_Aint segment = cut_segments(a, subs, nsub, g.ndims);
    nsub = keep_lane(a, subs, nsub, chains, halfway); /* the plans left: subs[0 .. nsub) */
    s->lane = a->lanes > 1 ? a->lane : 0;
    s->nlanes = a->lanes > 1 ? a->lanes : 1;
    for (int k = 0; k < nsub; k++) {
        sub_color *sc = &subs[k];
        for (int j = 0; j < p && op != TDM_TORUS_ALLREDUCE; j++)
            if (sc->order[j] == me) {
                sc->own_off = sc->pos[j];
                sc->own_end = sc->pos[j + 1];
            }
        if (op == TDM_TORUS_ALLREDUCE) {
            sc->w = tdm_elem(out, t, sc->region_off);
        } else if (op == TDM_TORUS_ALLGATHER && g.ndims == 1) { /* every message is one owner's part */
            if (!(sc->home_off = malloc(sizeof(MPI_Aint) * (size_t)p))) {
                s->error = MPI_ERR_NO_MEM;
                return finish_build(s, subs, nsub);
            }
            for (int j = 0; j < p; j++)
                sc->home_off[j] = offset[sc->order[j]] + sc->part_off[sc->order[j]];
            sc->w = out;
        } else if (sc->follower) {
            sc->w = partner_of(subs, k)->w;
        } else {
            sc->w = tdm_tmp_elems(s, t, sc->pos[p]); /* NULL if the sub-color carries nothing */
        }
        /* the reductions read the input where it is (an allreduce in place has it in w already) */
        if (op == TDM_TORUS_REDUCE_SCATTER || (op == TDM_TORUS_ALLREDUCE && input != out)) {
            if (!(sc->fresh_off = malloc(sizeof(MPI_Aint) * (size_t)p))) {
                s->error = MPI_ERR_NO_MEM;
                return finish_build(s, subs, nsub);
            }
            for (int j = 0; j < p; j++)
                sc->fresh_off[j] = op == TDM_TORUS_ALLREDUCE
                                       ? sc->region_off + sc->pos[j]
                                       : input_offset[sc->order[j]] + sc->part_off[sc->order[j]];
            sc->fresh = input;
        }
        /* received segments wait in scratch to be reduced, except in a first phase with fresh input */
        for (int b = 0; b < 2 && op != TDM_TORUS_ALLGATHER && !(g.ndims == 1 && sc->fresh); b++)
            sc->scratch[b] = tdm_tmp_elems(s, t, segment);
        if (op == TDM_TORUS_REDUCE_SCATTER && input != out) /* in place the output is input not read yet */
            sc->result = tdm_elem(out, t, sc->part_off[me]);
    }
    if (s->error != MPI_SUCCESS)
        return finish_build(s, subs, nsub);

    /* the allgather's own part into its sub-colors' buffers (unless there already) */
    for (int k = 0; k < nsub && op == TDM_TORUS_ALLGATHER; k++) {
        sub_color *sc = &subs[k];
        if (sc->follower)
            continue; /* its partner's copy */
        char *from = tdm_elem(input, t, input_offset[me] + sc->part_off[me]), *to = w_at(a, sc, sc->own_off);
        if (from != to)
            tdm_sched_copy(s, from, sc->part_count[me], type, to, sc->part_count[me], type);
    }
    if (op != TDM_TORUS_ALLGATHER)
        emit_phases(s, a, &g, subs, nsub, 1, units);
    if (op != TDM_TORUS_REDUCE_SCATTER) {
        emit_phases(s, a, &g, subs, nsub, 0, units); /* its first round also reduces the last segments */
    } else {
        for (int k = 0; k < nsub; k++)
            units[k].active = 0;
        emit_round(s, a, subs, nsub, units, 1, 0, 0); /* the last segments */
    }
    /* out of the buffers: the own part (reduce-scatter in place) or every owner's part (allgather) */
    for (int k = 0; k < nsub && op != TDM_TORUS_ALLREDUCE; k++) {
        sub_color *sc = &subs[k];
        if (sc->result || sc->home_off || sc->follower)
            continue; /* received (and reduced) there, or copied out by its partner */
        if (op == TDM_TORUS_REDUCE_SCATTER) {
            tdm_sched_copy(s, tdm_elem(sc->w, t, sc->own_off), sc->part_count[me], type,
                           tdm_elem(out, t, sc->part_off[me]), sc->part_count[me], type);
            continue;
        }
        for (int j = 0; j < p; j++) {
            int b = sc->order[j];
            tdm_sched_copy(s, tdm_elem(sc->w, t, sc->pos[j]), sc->part_count[b], type,
                           tdm_elem(out, t, offset[b] + sc->part_off[b]), sc->part_count[b], type);
        }
    }
    return finish_build(s, subs, nsub);
}
