/*
 * Every collective x every algorithm x datatypes and ops (predefined, derived, user-defined,
 * non-commutative) x counts x in place or not x roots x communicators, each compared byte for byte
 * with MPI's own collective on the same input. Run it on any number of ranks.
 *
 * Values are chosen so that every reduction is exact (integers, integer-valued floating point), so
 * the comparison is exact bits; gaps inside derived datatypes must come back untouched too.
 */
#include "harness.h"

#ifdef TANDEM_TEST_THROUGH_MPI
#include <dlfcn.h>
#endif

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The large count, in elements: 2^16 (256 KiB of ints); TEST_LARGE_COUNT may set another. Steps in
 * many segments are the segments variants' (TANDEM_SEGMENT_BYTES); tests/CMakeLists.txt also runs 3
 * ranks at 2^18, whose steps the model's own choice cuts in 3 (at 2^18 everywhere, the large counts
 * took half of the matrix's time). */
static int large_count = 1 << 16;
/* The collectives whose count is a rank's block (allgather, alltoall, reduce_scatter, ...) hold p
 * blocks in a buffer: their large blocks shrink beyond 4 ranks, so that a buffer holds at most 4 times
 * the large count (16 and 17 ranks would otherwise move 17 MiB per rank per call). */
#define LARGE_BUFFER_BLOCKS 4
/* Which algorithms a type case runs the large count with: all of them, or the automatic choice only
 * (not in place, first root, communicators of up to LARGE_AUTO_MAX_RANKS: a derived type's large
 * calls cost MPI's reference more than they cost Tandem, and under the sanitizers most of all). */
#define LARGE_AUTO_MAX_RANKS 4
enum { LARGE_NONE, LARGE_EVERY_ALGORITHM, LARGE_AUTO };

/* ---- datatypes and ops under test ---- */

typedef void (*fill_fn)(char *elem, int rank, long i, int salt);

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Aint extent;
    fill_fn fill;
    MPI_Op op;            /* for reductions; MPI_OP_NULL: not a reduction case */
} elem_type;

typedef struct {
    const char *name;
    elem_type send, recv; /* the same except for the mixed-signature case */
    int send_factor, recv_factor; /* sendcount = count * send_factor, recvcount = count * recv_factor */
    int large;            /* also run with large_count: LARGE_EVERY_ALGORITHM or LARGE_AUTO */
    int data;             /* also a case for the data-movement collectives */
    /* A predefined op on a derived datatype, which MPI itself refuses: the reference runs MPI on the
     * packed data as ref_factor basic elements per element. */
    MPI_Datatype ref_basic;
    int ref_factor;
} type_case;

static int value(int rank, long i, int salt) { return (int)(((rank + 1) * 131 + i * 7 + salt * 3) % 2001) - 1000; }

static void fill_int(char *e, int r, long i, int s) { *(int *)e = value(r, i, s); }
static void fill_double(char *e, int r, long i, int s) { *(double *)e = value(r, i, s); }
static void fill_2int(char *e, int r, long i, int s)
{
    ((int *)e)[0] = (int)((r * 5 + i * 3 + s) % 7); /* ties on purpose: MINLOC keeps the lower index */
    ((int *)e)[1] = r;
}
static void fill_vector2(char *e, int r, long i, int s) /* ints at 0 and 8, a gap at 4 */
{
    *(int *)e = value(r, i, s);
    *(int *)(e + 8) = value(r, i + 1, s);
}
static void fill_affine(char *e, int r, long i, int s)
{
    ((unsigned *)e)[0] = 2u * (unsigned)value(r, i, s) + 1u;
    ((unsigned *)e)[1] = (unsigned)value(r, i, s + 1);
}
typedef struct {
    int i;
    double d;
} int_double;
static void fill_struct(char *e, int r, long i, int s)
{
    ((int_double *)e)->i = value(r, i, s);
    ((int_double *)e)->d = value(r, i, s + 5);
}
static void fill_bool(char *e, int r, long i, int s) { *(_Bool *)e = (r + i + s) % 3 == 0; }
static void fill_byte(char *e, int r, long i, int s) { *(unsigned char *)e = (unsigned char)((r * 37 + i * 11 + s) & 0xff); }
static void fill_dcomplex(char *e, int r, long i, int s)
{
    ((double *)e)[0] = value(r, i, s);
    ((double *)e)[1] = value(r, i, s + 2);
}

/* Affine maps x -> a x + b under composition (first the lower rank's, then the higher's):
 * associative, not commutative. */
static void affine_compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *u = in, *v = inout;
    for (int k = 0; k < *len; k++, u += 2, v += 2) {
        unsigned a = u[0] * v[0], b = u[1] * v[0] + v[1];
        v[0] = a;
        v[1] = b;
    }
}

/* Sum of vector(2,1,2,int) elements, reading through the gaps' layout. */
static void vector2_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *u = in, *v = inout;
    for (int k = 0; k < *len; k++, u += 3, v += 3) {
        v[0] += u[0];
        v[2] += u[2];
    }
}

static void struct_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int_double *u = in, *v = inout;
    for (int k = 0; k < *len; k++) {
        v[k].i += u[k].i;
        v[k].d += u[k].d;
    }
}

static type_case cases[20];
static int ncases;
static MPI_Datatype owned_types[8];
static MPI_Op owned_ops[8];
static int nowned_types, nowned_ops;

static elem_type elem(const char *name, MPI_Datatype type, fill_fn fill, MPI_Op op)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (elem_type){name, type, extent, fill, op};
}

static void add_case(const char *name, elem_type send, elem_type recv, int sf, int rf, int large, int data)
{
    cases[ncases++] = (type_case){name, send, recv, sf, rf, large, data, MPI_DATATYPE_NULL, 0};
}

static void setup_cases(void)
{
    MPI_Datatype vector2, affine, strct;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector2);
    MPI_Type_commit(&vector2);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &affine);
    MPI_Type_commit(&affine);
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(int_double, i), offsetof(int_double, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, tmp;
    MPI_Type_create_struct(2, blocklens, displs, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(int_double), &strct);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&strct);
    owned_types[nowned_types++] = vector2;
    owned_types[nowned_types++] = affine;
    owned_types[nowned_types++] = strct;
    MPI_Op affine_op, struct_op, vector_op;
    MPI_Op_create(affine_compose, 0, &affine_op);
    MPI_Op_create(struct_sum, 1, &struct_op);
    MPI_Op_create(vector2_sum, 1, &vector_op);
    owned_ops[nowned_ops++] = affine_op;
    owned_ops[nowned_ops++] = struct_op;
    owned_ops[nowned_ops++] = vector_op;

    elem_type e_int = elem("int", MPI_INT, fill_int, MPI_SUM);
    add_case("int/sum", e_int, e_int, 1, 1, LARGE_EVERY_ALGORITHM, 1);
    elem_type e_dbl = elem("double", MPI_DOUBLE, fill_double, MPI_SUM);
    add_case("double/sum", e_dbl, e_dbl, 1, 1, LARGE_NONE, 0);
    elem_type e_max = elem("double", MPI_DOUBLE, fill_double, MPI_MAX);
    add_case("double/max", e_max, e_max, 1, 1, LARGE_NONE, 0);
    elem_type e_2int = elem("2int", MPI_2INT, fill_2int, MPI_MINLOC);
    add_case("2int/minloc", e_2int, e_2int, 1, 1, LARGE_NONE, 1);
    elem_type e_vec = elem("vector2", vector2, fill_vector2, MPI_SUM);
    add_case("vector(2,1,2,int)/sum", e_vec, e_vec, 1, 1, LARGE_AUTO, 1);
    cases[ncases - 1].ref_basic = MPI_INT;
    cases[ncases - 1].ref_factor = 2;
    elem_type e_vec_user = elem("vector2", vector2, fill_vector2, vector_op);
    add_case("vector(2,1,2,int)/user-sum", e_vec_user, e_vec_user, 1, 1, LARGE_NONE, 0);
    elem_type e_aff = elem("affine", affine, fill_affine, affine_op);
    add_case("affine/user-noncommutative", e_aff, e_aff, 1, 1, LARGE_AUTO, 0);
    elem_type e_str = elem("struct", strct, fill_struct, struct_op);
    add_case("struct{int,double}/user-commutative", e_str, e_str, 1, 1, LARGE_NONE, 1);
    elem_type e_bool = elem("bool", MPI_C_BOOL, fill_bool, MPI_LOR);
    add_case("bool/lor", e_bool, e_bool, 1, 1, LARGE_NONE, 0);
    elem_type e_byte = elem("byte", MPI_BYTE, fill_byte, MPI_BXOR);
    add_case("byte/bxor", e_byte, e_byte, 1, 1, LARGE_NONE, 1);
    elem_type e_cplx = elem("dcomplex", MPI_C_DOUBLE_COMPLEX, fill_dcomplex, MPI_SUM);
    add_case("double complex/sum", e_cplx, e_cplx, 1, 1, LARGE_NONE, 0);
    /* different datatypes on the two sides, same type signature: vector of 2 ints vs 2 ints */
    elem_type e_int_data = elem("int", MPI_INT, fill_int, MPI_OP_NULL);
    elem_type e_vec_data = elem("vector2", vector2, fill_vector2, MPI_OP_NULL);
    add_case("vector2 -> 2 x int", e_vec_data, e_int_data, 1, 2, LARGE_NONE, 1);
    add_case("2 x int -> vector2", e_int_data, e_vec_data, 2, 1, LARGE_NONE, 1);
}

static int is_reduction_case(const type_case *tc) { return tc->send.op != MPI_OP_NULL; }
static int is_mixed_case(const type_case *tc) { return tc->send.type != tc->recv.type; }

/* ---- buffers ---- */

static char *alloc_elems(long n, const elem_type *t)
{
    size_t bytes = n > 0 ? (size_t)n * (size_t)t->extent : 1;
    char *p = malloc(bytes);
    memset(p, 0x5a, bytes);
    return p;
}

static void fill(char *buf, long first, long n, const elem_type *t, int rank, int salt)
{
    if (t->fill == fill_int) { /* the large counts' type: value() stepped without a call per element */
        int *p = (int *)buf + first, v = value(rank, first, salt) + 1000;
        for (long i = 0; i < n; i++, v = v + 7 >= 2001 ? v + 7 - 2001 : v + 7)
            p[i] = v - 1000;
        return;
    }
    for (long i = 0; i < n; i++)
        t->fill(buf + (first + i) * t->extent, rank, first + i, salt);
}

static char *dup_buf(const char *src, long n, const elem_type *t)
{
    size_t bytes = n > 0 ? (size_t)n * (size_t)t->extent : 1;
    char *p = malloc(bytes);
    memcpy(p, src, bytes);
    return p;
}

/*
 * The data of n elements must equal MPI's result; MPI defines nothing about the gaps of a derived
 * datatype (Open MPI writes them), so Tandem's gaps are instead checked to be untouched: they must
 * still hold what was there before the call.
 */
static int same(const char *ref, const char *mine, const char *before, long n, const elem_type *t)
{
    if (n <= 0)
        return 1;
    size_t bytes = (size_t)n * (size_t)t->extent;
    int size;
    MPI_Type_size(t->type, &size);
    MPI_Aint true_lb, true_extent;
    MPI_Type_get_true_extent(t->type, &true_lb, &true_extent);
    if (size == t->extent && true_lb == 0 && true_extent == t->extent) /* no gaps: every byte is data */
        return memcmp(ref, mine, bytes) == 0;
    char *ones = malloc((size_t)n * size + 1), *mask = calloc(bytes, 1);
    memset(ones, 0xff, (size_t)n * size);
    int pos = 0;
    MPI_Unpack(ones, (int)(n * size), &pos, mask, (int)n, t->type, MPI_COMM_SELF);
    int ok = 1;
    for (size_t b = 0; b < bytes && ok; b++)
        ok = mask[b] ? ref[b] == mine[b] : mine[b] == before[b];
    free(ones);
    free(mask);
    return ok;
}

/* ---- references through the basic type, for predefined ops on derived datatypes ---- */

/* Packed copy (as basic elements) of n elements of t; NULL stays NULL, MPI_IN_PLACE stays. */
static void *pack_elems(const void *buf, long n, const elem_type *t, const type_case *tc)
{
    if (buf == MPI_IN_PLACE)
        return MPI_IN_PLACE;
    int size;
    MPI_Type_size(t->type, &size);
    char *packed = malloc((size_t)n * size + 1);
    int pos = 0;
    if (buf)
        MPI_Pack(buf, (int)n, t->type, packed, (int)(n * size), &pos, MPI_COMM_SELF);
    (void)tc;
    return packed;
}

static void unpack_elems(const void *packed, void *buf, long n, const elem_type *t)
{
    int size, pos = 0;
    MPI_Type_size(t->type, &size);
    MPI_Unpack(packed, (int)(n * size), &pos, buf, (int)n, t->type, MPI_COMM_SELF);
}

typedef enum { REF_REDUCE, REF_ALLREDUCE, REF_SCAN, REF_EXSCAN, REF_RS, REF_RS_BLOCK } ref_kind;

/* MPI's own collective as the reference; through the basic type when the case needs it. recv_n
 * elements of ref come back. The reference never runs in place, even when Tandem does: MPICH 4.0.2's
 * MPI_Reduce (non-zero root) and MPI_Reduce_scatter crash with MPI_IN_PLACE on long vectors. */
static int reference(ref_kind kind, const type_case *tc, const void *send, void *ref, long send_n,
                      long recv_n, int count, const int *counts, int root, MPI_Comm comm)
{
    const elem_type *t = &tc->send;
    MPI_Datatype type = t->type;
    int f = 1;
    const void *s = send;
    void *r = ref;
    int scaled[64];
    if (tc->ref_basic != MPI_DATATYPE_NULL) {
        type = tc->ref_basic;
        f = tc->ref_factor;
        s = pack_elems(send, send_n, t, tc);
        r = pack_elems(ref, send == MPI_IN_PLACE ? send_n : recv_n, t, tc);
        if (counts) {
            int p;
            MPI_Comm_size(comm, &p);
            for (int i = 0; i < p; i++)
                scaled[i] = counts[i] * f;
            counts = scaled;
        }
    }
    int rc = MPI_ERR_OTHER;
    switch (kind) {
    case REF_REDUCE: rc = REFERENCE(MPI_Ireduce, s, r, count * f, type, t->op, root, comm); break;
    case REF_ALLREDUCE: rc = REFERENCE(MPI_Iallreduce, s, r, count * f, type, t->op, comm); break;
    case REF_SCAN: rc = REFERENCE(MPI_Iscan, s, r, count * f, type, t->op, comm); break;
    case REF_EXSCAN: rc = REFERENCE(MPI_Iexscan, s, r, count * f, type, t->op, comm); break;
    case REF_RS: rc = REFERENCE(MPI_Ireduce_scatter, s, r, counts, type, t->op, comm); break;
    case REF_RS_BLOCK: rc = REFERENCE(MPI_Ireduce_scatter_block, s, r, count * f, type, t->op, comm); break;
    }
    if (r != ref) {
        unpack_elems(r, ref, recv_n, t);
        free(r);
        if (s != MPI_IN_PLACE)
            free((void *)s);
    }
    return rc;
}

/* ---- one configuration ---- */

typedef struct {
    MPI_Comm comm;
    const char *comm_name;
    int rank, size;
    const char *coll, *alg;
    const type_case *tc;
    int count, in_place, root;
    int nodes_shared, nodes_in_order; /* two ranks share a node; each node holds consecutive ranks */
    int nodes_several;                /* the ranks are on more than one node */
} config;

static void report(const config *c, int ok, const char *what)
{
    check(ok, "%s alg=%s type=%s count=%d in_place=%d root=%d comm=%s(%d): %s", c->coll, c->alg, c->tc->name,
          c->count, c->in_place, c->root, c->comm_name, c->size, what);
}

/* ---- references for the data-movement collectives ---- */

/* One side of a data-movement call: a buffer of `span` elements holding blocks (count, or counts at
 * displs). */
typedef struct {
    void *buf;
    long span;
    const elem_type *t;
    int count;
    const int *counts, *displs;
} side;

typedef enum { D_BCAST, D_GATHER, D_GATHERV, D_SCATTER, D_SCATTERV, D_ALLGATHER, D_ALLGATHERV, D_ALLTOALL,
               D_ALLTOALLV } data_kind;

static int is_derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    return combiner != MPI_COMBINER_NAMED;
}

static int call_data(data_kind k, side s, side r, int root, MPI_Comm comm)
{
    MPI_Datatype st = s.t ? s.t->type : MPI_DATATYPE_NULL, rt = r.t ? r.t->type : MPI_DATATYPE_NULL;
    switch (k) {
    case D_BCAST: return REFERENCE(MPI_Ibcast, r.buf, r.count, rt, root, comm);
    case D_GATHER: return REFERENCE(MPI_Igather, s.buf, s.count, st, r.buf, r.count, rt, root, comm);
    case D_GATHERV: return REFERENCE(MPI_Igatherv, s.buf, s.count, st, r.buf, r.counts, r.displs, rt, root, comm);
    case D_SCATTER: return REFERENCE(MPI_Iscatter, s.buf, s.count, st, r.buf, r.count, rt, root, comm);
    case D_SCATTERV: return REFERENCE(MPI_Iscatterv, s.buf, s.counts, s.displs, st, r.buf, r.count, rt, root, comm);
    case D_ALLGATHER: return REFERENCE(MPI_Iallgather, s.buf, s.count, st, r.buf, r.count, rt, comm);
    case D_ALLGATHERV: return REFERENCE(MPI_Iallgatherv, s.buf, s.count, st, r.buf, r.counts, r.displs, rt, comm);
    case D_ALLTOALL: return REFERENCE(MPI_Ialltoall, s.buf, s.count, st, r.buf, r.count, rt, comm);
    case D_ALLTOALLV:
        return REFERENCE(MPI_Ialltoallv, s.buf, s.counts, s.displs, st, r.buf, r.counts, r.displs, rt, comm);
    }
    return MPI_ERR_OTHER;
}

/* The side as bytes: its span packed, counts and displacements scaled to bytes. */
static side as_bytes(side x, int *counts, int *displs, int p, const elem_type *byte_elem)
{
    if (x.buf == MPI_IN_PLACE || !x.t)
        return x;
    int size;
    MPI_Type_size(x.t->type, &size);
    char *bytes = malloc((size_t)x.span * size + 1);
    int pos = 0;
    if (x.buf)
        MPI_Pack(x.buf, (int)x.span, x.t->type, bytes, (int)(x.span * size), &pos, MPI_COMM_SELF);
    side b = {bytes, x.span * size, byte_elem, x.count * size, NULL, NULL};
    if (x.counts) {
        for (int i = 0; i < p; i++) {
            counts[i] = x.counts[i] * size;
            displs[i] = x.displs[i] * size;
        }
        b.counts = counts;
        b.displs = displs;
    }
    return b;
}

/*
 * MPI's own collective as the reference. With a derived datatype it runs on the packed bytes
 * (MPI_BYTE), the same data: MPICH 4.0.2 with UCX truncates long messages of derived datatypes in its
 * own collectives (its binomial MPI_Scatter of 1000 struct elements fails with "Message truncated").
 */
static int data_reference(data_kind k, side s, side r, int root, MPI_Comm comm)
{
    int derived = (s.t && s.buf != MPI_IN_PLACE && is_derived(s.t->type)) ||
                  (r.t && r.buf != MPI_IN_PLACE && is_derived(r.t->type));
    if (!derived)
        return call_data(k, s, r, root, comm);
    static elem_type byte_elem = {"byte", MPI_BYTE, 1, NULL, MPI_OP_NULL};
    int p, sc[64], sd[64], rc_[64], rd[64];
    MPI_Comm_size(comm, &p);
    side sb = as_bytes(s, sc, sd, p, &byte_elem), rb = as_bytes(r, rc_, rd, p, &byte_elem);
    int rc = call_data(k, sb, rb, root, comm);
    if (rb.buf != r.buf) {
        int pos = 0;
        if (r.buf)
            MPI_Unpack(rb.buf, (int)rb.span, &pos, r.buf, (int)r.span, r.t->type, MPI_COMM_SELF);
        free(rb.buf);
    }
    if (sb.buf != s.buf)
        free(sb.buf);
    return rc;
}

static void reference_ok(const config *c, int rc)
{
    check(rc == MPI_SUCCESS, "%s type=%s count=%d: MPI's own reference call failed (%d)", c->coll,
          c->tc->name, c->count, rc);
}


/* TANDEM_PROGRESS=dcp: the calls the dedicated collective processes served */
static int dcp_mode;
static long dcp_served;

#ifndef TANDEM_TEST_THROUGH_MPI
/* README, "Algorithms": ring and torus algorithms need a commutative op, recursive-doubling allgather a
 * power of two; a call they cannot serve goes to the collective's general algorithm. */
static int forced_can_serve(const config *c, const char *family)
{
    int commutative = 1; /* only reductions (reduce, allreduce, reduce_scatter) have an op to ask */
    if (strstr(family, "reduce") && c->tc->send.op != MPI_OP_NULL)
        MPI_Op_commutative(c->tc->send.op, &commutative);
    /* node-aware algorithms: ranks sharing a node; rank order kept for non-commutative ops only where
     * nodes hold consecutive ranks */
    if (strcmp(c->alg, "node") == 0 && (!c->nodes_shared || (!commutative && !c->nodes_in_order)))
        return 0;
    /* node-aware scan and exscan: several nodes only where they hold consecutive ranks */
    if (strcmp(c->alg, "node") == 0 && strstr(family, "scan") && c->nodes_several && !c->nodes_in_order)
        return 0;
    if (!commutative && (strcmp(c->alg, "ring") == 0 || strncmp(c->alg, "torus_bucket", 12) == 0))
        return 0;
    if (strcmp(family, "allgather") == 0 && strcmp(c->alg, "recursive_doubling") == 0 &&
        (c->size & (c->size - 1)) != 0)
        return 0;
    return 1;
}

/* Whether a call runs in chunks of its v form (TANDEM_CHUNK_BYTES: gather as gatherv, ...; a
 * reduce_scatter_block as reduce_scatter), whose algorithms are chosen for the chunks. */
static int in_chunks_of_v_form(const config *c, const char *running)
{
    char v_form[64];
    snprintf(v_form, sizeof v_form, "%sv_", c->coll);
    return getenv("TANDEM_CHUNK_BYTES") &&
           (strncmp(running, v_form, strlen(v_form)) == 0 ||
            (strcmp(c->coll, "reduce_scatter_block") == 0 && strncmp(running, "reduce_scatter_", 15) == 0));
}

/* A forced algorithm runs every call it can serve (reduce_scatter_block shares reduce_scatter's). In
 * dcp progress, the calls the DCPs served are counted. */
static void check_running_algorithm(const config *c, TDM_Request req)
{
    const char *name = TDM_Request_algorithm(req);
    if (dcp_mode && name && strlen(name) > 4 && strcmp(name + strlen(name) - 4, "_dcp") == 0)
        dcp_served++;
    if (strcmp(c->alg, "auto") == 0)
        return;
    const char *family = strcmp(c->coll, "reduce_scatter_block") == 0 ? "reduce_scatter" : c->coll;
    char expected[128];
    snprintf(expected, sizeof expected, "%s_%s", family, c->alg);
    const char *running = TDM_Request_algorithm(req);
    size_t family_len = strlen(family);
    if (!running)
        report(c, 0, "TDM_Request_algorithm gave NULL for a running call");
    else if (in_chunks_of_v_form(c, running))
        return;
    else if (forced_can_serve(c, family))
        report(c, strcmp(running, expected) == 0, "the forced algorithm did not run");
    else /* the fallback: another algorithm of the same collective */
        report(c, strncmp(running, family, family_len) == 0 && running[family_len] == '_' &&
                      strcmp(running, expected) != 0,
               "a forced algorithm that cannot serve the call did not fall back");
}
#endif

static void wait_ok(const config *c, TDM_Request *req)
{
#ifndef TANDEM_TEST_THROUGH_MPI
    check_running_algorithm(c, *req);
#endif
    int rc = TDM_Wait(req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        report(c, 0, TDM_Last_error());
    if (*req != TDM_REQUEST_NULL)
        report(c, 0, "request not reset to TDM_REQUEST_NULL");
}

static int started(const config *c, int rc)
{
    if (rc != MPI_SUCCESS)
        report(c, 0, TDM_Last_error());
    return rc == MPI_SUCCESS;
}

static void test_bcast(const config *c)
{
    const elem_type *t = &c->tc->recv;
    long n = c->count;
    char *ref = alloc_elems(n, t);
    fill(ref, 0, n, t, c->rank == c->root ? 1000 : c->rank, 1);
    char *mine = dup_buf(ref, n, t), *before = dup_buf(ref, n, t);
    reference_ok(c, data_reference(D_BCAST, (side){0}, (side){ref, n, t, c->count, NULL, NULL}, c->root,
                                   c->comm));
    TDM_Request req;
    if (started(c, TDM_Ibcast(mine, c->count, t->type, c->root, c->comm, &req)))
        wait_ok(c, &req);
    report(c, same(ref, mine, before, n, t), "result differs from MPI_Bcast");
    free(before);
    free(ref);
    free(mine);
}

/* reduce, allreduce, scan, exscan */
static void test_reduction(const config *c)
{
    const elem_type *t = &c->tc->send;
    long n = c->count;
    char *input = alloc_elems(n, t);
    fill(input, 0, n, t, c->rank, 2);
    char *ref = alloc_elems(n, t), *mine = alloc_elems(n, t);
    int is_root = c->rank == c->root;
    int in_place = c->in_place && (strcmp(c->coll, "reduce") != 0 || is_root);
    if (in_place) {
        memcpy(ref, input, n ? (size_t)n * t->extent : 1);
        memcpy(mine, input, n ? (size_t)n * t->extent : 1);
    }
    const void *my_send = in_place ? MPI_IN_PLACE : input;
    char *before = dup_buf(mine, n, t);
    TDM_Request req;
    int rc, check_result = 1;
    if (strcmp(c->coll, "reduce") == 0) {
        reference_ok(c, reference(REF_REDUCE, c->tc, input, ref, n, n, c->count, NULL, c->root, c->comm));
        rc = TDM_Ireduce(my_send, mine, c->count, t->type, t->op, c->root, c->comm, &req);
        check_result = is_root;
    } else if (strcmp(c->coll, "allreduce") == 0) {
        reference_ok(c, reference(REF_ALLREDUCE, c->tc, input, ref, n, n, c->count, NULL, 0, c->comm));
        rc = TDM_Iallreduce(my_send, mine, c->count, t->type, t->op, c->comm, &req);
    } else if (strcmp(c->coll, "scan") == 0) {
        reference_ok(c, reference(REF_SCAN, c->tc, input, ref, n, n, c->count, NULL, 0, c->comm));
        rc = TDM_Iscan(my_send, mine, c->count, t->type, t->op, c->comm, &req);
    } else {
        reference_ok(c, reference(REF_EXSCAN, c->tc, input, ref, n, n, c->count, NULL, 0, c->comm));
        rc = TDM_Iexscan(my_send, mine, c->count, t->type, t->op, c->comm, &req);
        check_result = c->rank > 0; /* undefined at rank 0 */
    }
    if (started(c, rc))
        wait_ok(c, &req);
    if (check_result)
        report(c, same(ref, mine, before, n, t), "result differs from MPI's");
    free(before);
    free(input);
    free(ref);
    free(mine);
}

/* Varying per-rank counts for the v forms and reduce_scatter; zeros included. */
static int vcount(int count, int i) { return count == 0 ? 0 : count + (i % 3) - 1; }

static void test_reduce_scatter(const config *c, int block)
{
    const elem_type *t = &c->tc->send;
    int counts[64] = {0};
    long total = 0;
    for (int i = 0; i < c->size; i++)
        total += counts[i] = block ? c->count : vcount(c->count, i);
    long mine_n = counts[c->rank];
    char *input = alloc_elems(total, t);
    fill(input, 0, total, t, c->rank, 3);
    char *ref = c->in_place ? dup_buf(input, total, t) : alloc_elems(mine_n, t);
    char *mine = c->in_place ? dup_buf(input, total, t) : alloc_elems(mine_n, t);
    const void *send = c->in_place ? MPI_IN_PLACE : input;
    char *before = dup_buf(mine, mine_n, t);
    TDM_Request req;
    int rc;
    if (block) {
        reference_ok(c, reference(REF_RS_BLOCK, c->tc, input, ref, total, mine_n, c->count, NULL, 0, c->comm));
        rc = TDM_Ireduce_scatter_block(send, mine, c->count, t->type, t->op, c->comm, &req);
    } else {
        reference_ok(c, reference(REF_RS, c->tc, input, ref, total, mine_n, 0, counts, 0, c->comm));
        rc = TDM_Ireduce_scatter(send, mine, counts, t->type, t->op, c->comm, &req);
    }
    if (started(c, rc))
        wait_ok(c, &req);
    report(c, same(ref, mine, before, mine_n, t), "result differs from MPI's");
    free(before);
    free(input);
    free(ref);
    free(mine);
}

/* Block displacements for the v forms: in reverse rank order with one spare element between. */
static long v_layout(const int *counts, int p, int *displs)
{
    long at = 0;
    for (int i = p - 1; i >= 0; i--) {
        displs[i] = (int)at;
        at += counts[i] + 1;
    }
    return at;
}

static void test_gather(const config *c, int v, int all)
{
    const type_case *tc = c->tc;
    int p = c->size, is_root = c->rank == c->root || all;
    int sendcount = c->count * tc->send_factor, recvcount = c->count * tc->recv_factor;
    int counts[64] = {0}, displs[64] = {0};
    long recv_n;
    for (int i = 0; i < p; i++)
        counts[i] = v ? vcount(recvcount, i) : recvcount;
    if (v)
        recv_n = v_layout(counts, p, displs);
    else
        recv_n = (long)recvcount * p;
    if (v)
        sendcount = counts[c->rank];
    char *input = alloc_elems(sendcount, &tc->send);
    fill(input, 0, sendcount, &tc->send, c->rank, 4);
    char *ref = alloc_elems(recv_n, &tc->recv);
    int in_place = c->in_place && is_root;
    if (in_place) { /* the rank's own block already sits in recvbuf */
        long first = v ? displs[c->rank] : (long)recvcount * c->rank;
        fill(ref, first, counts[c->rank], &tc->recv, c->rank, 4);
    }
    char *mine = dup_buf(ref, recv_n, &tc->recv), *before = dup_buf(ref, recv_n, &tc->recv);
    const void *send = in_place ? MPI_IN_PLACE : input;
    TDM_Request req;
    int rc;
    MPI_Datatype st = tc->send.type, rt = tc->recv.type;
    side sd = {(void *)send, sendcount, &tc->send, sendcount, NULL, NULL};
    side rd = {is_root ? ref : NULL, recv_n, &tc->recv, recvcount, v ? counts : NULL, v ? displs : NULL};
    data_kind kind = all ? (v ? D_ALLGATHERV : D_ALLGATHER) : (v ? D_GATHERV : D_GATHER);
    reference_ok(c, data_reference(kind, sd, rd, c->root, c->comm));
    if (all && v)
        rc = TDM_Iallgatherv(send, sendcount, st, mine, counts, displs, rt, c->comm, &req);
    else if (all)
        rc = TDM_Iallgather(send, sendcount, st, mine, recvcount, rt, c->comm, &req);
    else if (v)
        rc = TDM_Igatherv(send, sendcount, st, mine, counts, displs, rt, c->root, c->comm, &req);
    else
        rc = TDM_Igather(send, sendcount, st, mine, recvcount, rt, c->root, c->comm, &req);
    if (started(c, rc))
        wait_ok(c, &req);
    if (is_root)
        report(c, same(ref, mine, before, recv_n, &tc->recv), "result differs from MPI's");
    free(before);
    free(input);
    free(ref);
    free(mine);
}

static void test_scatter(const config *c, int v)
{
    const type_case *tc = c->tc;
    int p = c->size, is_root = c->rank == c->root;
    int sendcount = c->count * tc->send_factor, recvcount = c->count * tc->recv_factor;
    int counts[64] = {0}, displs[64] = {0};
    long send_n = (long)sendcount * p;
    for (int i = 0; i < p; i++)
        counts[i] = v ? vcount(sendcount, i) : sendcount;
    if (v) {
        send_n = v_layout(counts, p, displs);
        recvcount = counts[c->rank];
    }
    char *input = alloc_elems(send_n, &tc->send);
    if (is_root)
        for (int i = 0; i < p; i++)
            fill(input, v ? displs[i] : (long)sendcount * i, counts[i], &tc->send, i, 5);
    char *ref = alloc_elems(recvcount, &tc->recv), *mine = alloc_elems(recvcount, &tc->recv);
    char *before = alloc_elems(recvcount, &tc->recv);
    void *ref_recv = c->in_place && is_root ? MPI_IN_PLACE : ref;
    void *my_recv = c->in_place && is_root ? MPI_IN_PLACE : mine;
    TDM_Request req;
    int rc;
    MPI_Datatype st = tc->send.type, rt = tc->recv.type;
    side sd = {is_root ? input : NULL, send_n, &tc->send, sendcount, v ? counts : NULL, v ? displs : NULL};
    side rd = {ref_recv, recvcount, &tc->recv, recvcount, NULL, NULL};
    reference_ok(c, data_reference(v ? D_SCATTERV : D_SCATTER, sd, rd, c->root, c->comm));
    if (v)
        rc = TDM_Iscatterv(input, counts, displs, st, my_recv, recvcount, rt, c->root, c->comm, &req);
    else
        rc = TDM_Iscatter(input, sendcount, st, my_recv, recvcount, rt, c->root, c->comm, &req);
    if (started(c, rc))
        wait_ok(c, &req);
    report(c, same(ref, mine, before, recvcount, &tc->recv), "result differs from MPI's");
    free(before);
    free(input);
    free(ref);
    free(mine);
}

/* alltoallv counts: what rank r sends to rank j; symmetric so that in-place alltoallv is legal.
 * v: 0 alltoall, 1 alltoallv, 2 alltoallw (alltoallv's blocks at byte displacements, the datatype of
 * every other rank a duplicate freed as soon as the call has started; MPI's alltoallv the reference). */
static int a2a_count(int count, int r, int j) { return count == 0 ? 0 : (count + r + j) % (count + 2); }

static void test_alltoall(const config *c, int v)
{
    const type_case *tc = c->tc;
    int p = c->size, r = c->rank;
    int sendcount = c->count * tc->send_factor, recvcount = c->count * tc->recv_factor;
    int scounts[64], sdispls[64], rcounts[64], rdispls[64];
    for (int j = 0; j < p; j++) {
        scounts[j] = v ? a2a_count(sendcount, r, j) : sendcount;
        rcounts[j] = v ? a2a_count(recvcount, j, r) : recvcount;
    }
    long send_n = v ? v_layout(scounts, p, sdispls) : (long)sendcount * p;
    long recv_n = v ? v_layout(rcounts, p, rdispls) : (long)recvcount * p;
    char *input = alloc_elems(send_n, &tc->send);
    for (int j = 0; j < p; j++)
        fill(input, v ? sdispls[j] : (long)sendcount * j, scounts[j], &tc->send, r * 100 + j, 6);
    char *ref = alloc_elems(recv_n, &tc->recv);
    if (c->in_place) /* the outgoing blocks start in recvbuf, laid out by the receive side */
        for (int j = 0; j < p; j++)
            fill(ref, v ? rdispls[j] : (long)recvcount * j, rcounts[j], &tc->recv, r * 100 + j, 6);
    char *mine = dup_buf(ref, recv_n, &tc->recv), *before = dup_buf(ref, recv_n, &tc->recv);
    const void *send = c->in_place ? MPI_IN_PLACE : input;
    TDM_Request req;
    int rc;
    MPI_Datatype st = tc->send.type, rt = tc->recv.type;
    side sd = {(void *)send, send_n, &tc->send, sendcount, v ? scounts : NULL, v ? sdispls : NULL};
    side rd = {ref, recv_n, &tc->recv, recvcount, v ? rcounts : NULL, v ? rdispls : NULL};
    reference_ok(c, data_reference(v ? D_ALLTOALLV : D_ALLTOALL, sd, rd, 0, c->comm));
    if (v == 2) {
        MPI_Datatype sdup, rdup, stypes[64], rtypes[64];
        int sbytes[64], rbytes[64];
        MPI_Type_dup(st, &sdup);
        MPI_Type_dup(rt, &rdup);
        for (int j = 0; j < p; j++) {
            stypes[j] = (r + j) % 2 ? sdup : st;
            rtypes[j] = (r + j) % 2 ? rdup : rt;
            sbytes[j] = (int)(sdispls[j] * tc->send.extent);
            rbytes[j] = (int)(rdispls[j] * tc->recv.extent);
        }
        rc = TDM_Ialltoallw(send, scounts, sbytes, stypes, mine, rcounts, rbytes, rtypes, c->comm, &req);
        MPI_Type_free(&sdup);
        MPI_Type_free(&rdup);
    } else if (v) {
        rc = TDM_Ialltoallv(send, scounts, sdispls, st, mine, rcounts, rdispls, rt, c->comm, &req);
    } else
        rc = TDM_Ialltoall(send, sendcount, st, mine, recvcount, rt, c->comm, &req);
    if (started(c, rc))
        wait_ok(c, &req);
    report(c, same(ref, mine, before, recv_n, &tc->recv), "result differs from MPI's");
    free(before);
    free(input);
    free(ref);
    free(mine);
}

static void test_barrier(const config *c)
{
    TDM_Request req;
    if (started(c, TDM_Ibarrier(c->comm, &req)))
        wait_ok(c, &req);
    report(c, 1, "barrier");
}

/* ---- the matrix ---- */

typedef struct {
    const char *name;
    int reduction;     /* needs a reduction case */
    int rooted;
    int in_place;      /* MPI allows MPI_IN_PLACE */
    int mixed_ok;      /* works with different send and receive datatypes */
    int blocks;        /* the count is one rank's block of a buffer of p blocks */
    void (*run)(const config *c);
} collective;

static void run_reduce_scatter(const config *c) { test_reduce_scatter(c, 0); }
static void run_reduce_scatter_block(const config *c) { test_reduce_scatter(c, 1); }
static void run_gather(const config *c) { test_gather(c, 0, 0); }
static void run_gatherv(const config *c) { test_gather(c, 1, 0); }
static void run_allgather(const config *c) { test_gather(c, 0, 1); }
static void run_allgatherv(const config *c) { test_gather(c, 1, 1); }
static void run_scatter(const config *c) { test_scatter(c, 0); }
static void run_scatterv(const config *c) { test_scatter(c, 1); }
static void run_alltoall(const config *c) { test_alltoall(c, 0); }
static void run_alltoallv(const config *c) { test_alltoall(c, 1); }
static void run_alltoallw(const config *c) { test_alltoall(c, 2); }

static const collective collectives[] = {
    {"barrier", 0, 0, 0, 0, 0, test_barrier},
    {"bcast", 0, 1, 0, 0, 0, test_bcast},
    {"reduce", 1, 1, 1, 0, 0, test_reduction},
    {"allreduce", 1, 0, 1, 0, 0, test_reduction},
    {"scan", 1, 0, 1, 0, 0, test_reduction},
    {"exscan", 1, 0, 1, 0, 0, test_reduction},
    {"reduce_scatter", 1, 0, 1, 0, 1, run_reduce_scatter},
    {"reduce_scatter_block", 1, 0, 1, 0, 1, run_reduce_scatter_block},
    {"gather", 0, 1, 1, 1, 1, run_gather},
    {"gatherv", 0, 1, 1, 0, 1, run_gatherv},
    {"scatter", 0, 1, 1, 1, 1, run_scatter},
    {"scatterv", 0, 1, 1, 0, 1, run_scatterv},
    {"allgather", 0, 0, 1, 1, 1, run_allgather},
    {"allgatherv", 0, 0, 1, 0, 1, run_allgatherv},
    {"alltoall", 0, 0, 1, 1, 1, run_alltoall},
    {"alltoallv", 0, 0, 1, 0, 1, run_alltoallv},
    {"alltoallw", 0, 0, 1, 0, 1, run_alltoallw},
};

/* The schedule dump names the forced algorithm on its first line (wait_ok checks that every call runs
 * it). */
#ifdef TANDEM_TEST_THROUGH_MPI
static void check_dump_names_algorithm(const config *c)
{
    (void)c; /* the program holds MPI requests: there is no Tandem request to ask */
}
#else
static void check_dump_names_algorithm(const config *matrix)
{
    if (strcmp(matrix->alg, "auto") == 0 || strcmp(matrix->coll, "allreduce") != 0)
        return;
    config call = *matrix;
    call.tc = &cases[0]; /* int, sum */
    call.count = 4;
    const config *c = &call;
    const elem_type *t = &c->tc->send;
    int data[4] = {1, 2, 3, 4}, out[4];
    TDM_Request req;
    if (!started(c, TDM_Iallreduce(data, out, 4, t->type, MPI_SUM, c->comm, &req)))
        return;
    char *text = harness_dump(req), header[160];
    if (forced_can_serve(c, "allreduce"))
        snprintf(header, sizeof header, "schedule %s_%s:", c->coll, c->alg);
    else /* the fallback */
        snprintf(header, sizeof header, "schedule %s_", c->coll);
    report(c, text && strncmp(text, header, strlen(header)) == 0, "TDM_Request_dump does not name the algorithm");
    free(text);
    wait_ok(c, &req);
}
#endif

static int names_of(const char *coll, char names[][32], int max)
{
    const char *list = TDM_Algorithm_names(coll);
    int n = 0;
    while (list && *list && n < max) {
        int len = 0;
        while (list[len] && list[len] != ' ')
            len++;
        snprintf(names[n++], 32, "%.*s", len, list);
        list += len;
        while (*list == ' ')
            list++;
    }
    return n;
}

/*
 * A setting that changes some algorithms only (TANDEM_TORUS_DIMS the torus bucket, TANDEM_SPLIT_S the
 * binomial trees, ...) is tested on the part of the matrix it changes: TEST_COLLECTIVES and
 * TEST_ALGORITHMS (comma-separated; "torus_bucket*" a prefix) name that part, unset all of it. The
 * automatic choice is always in it, since it may take the algorithms the setting changes.
 */
static int listed(const char *variable, const char *name)
{
    const char *list = getenv(variable);
    if (!list || !*list)
        return 1;
    for (const char *item = list; *item;) {
        size_t len = strcspn(item, ",");
        int prefix = len > 0 && item[len - 1] == '*';
        size_t cmp = prefix ? len - 1 : len;
        if (strncmp(item, name, cmp) == 0 && (prefix || name[cmp] == '\0'))
            return 1;
        item += len + (item[len] == ',');
    }
    return 0;
}

/* Every item of TEST_COLLECTIVES and TEST_ALGORITHMS names something: a misspelt filter would test nothing. */
static void check_filters(void)
{
    const char *variables[2] = {"TEST_COLLECTIVES", "TEST_ALGORITHMS"};
    for (int v = 0; v < 2; v++) {
        const char *list = getenv(variables[v]);
        for (const char *item = list ? list : ""; *item;) {
            size_t len = strcspn(item, ",");
            char one[64];
            snprintf(one, sizeof one, "%.*s", (int)len, item);
            int found = 0;
            for (size_t k = 0; k < sizeof collectives / sizeof collectives[0] && !found; k++) {
                char algs[8][32];
                int nalgs = v == 0 ? 1 : names_of(collectives[k].name, algs, 8);
                for (int a = 0; a < nalgs && !found; a++) {
                    const char *name = v == 0 ? collectives[k].name : algs[a];
                    size_t cmp = len > 0 && one[len - 1] == '*' ? len - 1 : len + 1;
                    found = strncmp(one, name, cmp) == 0;
                }
            }
            check(found, "%s: '%s' names no collective or algorithm", variables[v], one);
            item += len + (item[len] == ',');
        }
    }
}

static void run_matrix(MPI_Comm comm, const char *comm_name, int quick)
{
    config c = {.comm = comm, .comm_name = comm_name};
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.size);
    harness_nodes_of(comm, &c.nodes_shared, &c.nodes_in_order, &c.nodes_several);
    int roots[3] = {0, c.size - 1, c.size / 2}, nroots = c.size == 1 ? 1 : (c.size == 2 ? 2 : 3);
    int counts[] = {0, 1, 7, 1000, large_count};
    double t0 = MPI_Wtime();
    for (size_t k = 0; k < sizeof collectives / sizeof collectives[0]; k++) {
        const collective *col = &collectives[k];
        if (!listed("TEST_COLLECTIVES", col->name))
            continue;
        c.coll = col->name;
        char algs[8][32];
        int nalgs = names_of(col->name, algs, 8);
        for (int a = 0; a < nalgs; a++) {
            c.alg = algs[a];
            if (strcmp(c.alg, "auto") != 0 && (!listed("TEST_ALGORITHMS", c.alg) || dcp_mode))
                continue; /* dedicated collective processes choose their own algorithms */
            check(TDM_Set_algorithm(col->name, c.alg) == MPI_SUCCESS, "TDM_Set_algorithm(%s, %s): %s",
                  col->name, c.alg, TDM_Last_error());
            check_dump_names_algorithm(&c);
            for (int t = 0; t < ncases; t++) {
                c.tc = &cases[t];
                if (col->reduction ? !is_reduction_case(c.tc) : !c.tc->data)
                    continue;
                if (is_mixed_case(c.tc) && !col->mixed_ok)
                    continue;
                if (col->run == test_barrier && t > 0)
                    continue;
                for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                    c.count = counts[ci];
                    int large = c.count == large_count, large_auto_only = c.tc->large == LARGE_AUTO;
                    /* a large buffer of p blocks holds at most LARGE_BUFFER_BLOCKS times the count */
                    if (large && col->blocks && c.size > LARGE_BUFFER_BLOCKS)
                        c.count = large_count / c.size * LARGE_BUFFER_BLOCKS;
                    if (large &&
                        (c.tc->large == LARGE_NONE || quick ||
                         (large_auto_only && (strcmp(c.alg, "auto") != 0 || c.size > LARGE_AUTO_MAX_RANKS))))
                        continue;
                    if (quick && c.count == 1000 && t > 0)
                        continue;
                    int in_place_max = large && large_auto_only ? 0 : col->in_place;
                    for (c.in_place = 0; c.in_place <= in_place_max; c.in_place++)
                        for (int ri = 0; ri < (col->rooted ? nroots : 1); ri++) {
                            c.root = roots[ri];
                            if (large && ri > 0)
                                continue;
                            col->run(&c);
                        }
                }
            }
        }
        TDM_Set_algorithm(col->name, "auto");
        if (getenv("TEST_TIMING") && c.rank == 0)
            fprintf(stderr, "%s %s: %.2f s\n", comm_name, col->name, MPI_Wtime() - t0);
        t0 = MPI_Wtime();
    }
}

/* A node-aware bcast whose root gives 16,384 MPI_INT and the other ranks 8,192 pairs of them (one type
 * signature, other element sizes): the ranks must choose the same algorithm among the nodes (the choice
 * once saw the bytes times the rank's own element size, and the root sent a binomial tree that the
 * pairs' ranks received as a scatter and allgather: wrong data). */
static void bcast_node_other_element_sizes(MPI_Comm comm)
{
    enum { N = 16384 };
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int *got = malloc(sizeof(int) * N), *want = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        got[i] = want[i] = rank == 0 ? i * 7 + 1 : -1;
    MPI_Bcast(want, N, MPI_INT, 0, comm);
    CHECK_TDM(TDM_Set_algorithm("bcast", "node"));
    TDM_Request r;
    CHECK_TDM(rank == 0 ? TDM_Ibcast(got, N, MPI_INT, 0, comm, &r) : TDM_Ibcast(got, N / 2, pair, 0, comm, &r));
    CHECK_TDM(TDM_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Set_algorithm("bcast", "auto"));
    check(memcmp(got, want, sizeof(int) * N) == 0, "node bcast of 64 KiB as MPI_INT at the root, pairs elsewhere");
    free(got);
    free(want);
    MPI_Type_free(&pair);
}

int main(int argc, char **argv)
{
    /* Large buffers come and go with every case: malloc keeps them instead of mapping and unmapping
     * them each time (the page faults took a tenth of the run). */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    harness_init("test_collectives", &argc, &argv);
    const char *large = getenv("TEST_LARGE_COUNT");
    if (large) {
        large_count = atoi(large);
        check(large_count > 1000, "TEST_LARGE_COUNT=%s: expected a count above 1000", large);
    }
    setup_cases();
    check_filters();
    const char *progress = getenv("TANDEM_PROGRESS");
    dcp_mode = progress && strcmp(progress, "dcp") == 0;
    int rank, size;
    MPI_Comm world = harness_world(); /* in dcp progress, the application's ranks */
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);

    run_matrix(world, "world", 0);

    /* sub-communicators: a split (odd/even) in reverse rank order, and a dup */
    MPI_Comm split, dup;
    MPI_Comm_split(world, rank % 2, -rank, &split);
    run_matrix(split, "split-reversed", 1);
    MPI_Comm_dup(world, &dup);
    run_matrix(dup, "dup", 1);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    /* on emulated nodes, nodes that do not hold consecutive ranks: the even ranks first, then the odd */
    if (getenv("TANDEM_NODE_SIZE")) {
        MPI_Comm interleaved;
        MPI_Comm_split(world, 0, (rank % 2) * size + rank / 2, &interleaved);
        run_matrix(interleaved, "interleaved", 1);
        MPI_Comm_free(&interleaved);
        if (!dcp_mode)
            bcast_node_other_element_sizes(world);
    }

    /* a subgroup (MPI_Group_incl + MPI_Comm_create): every rank but 0 (beyond 2 ranks), in reverse order */
    int members = size > 2 ? size - 1 : size, ranks[64];
    for (int i = 0; i < members && i < 64; i++)
        ranks[i] = size - 1 - i;
    MPI_Group world_group, sub_group;
    MPI_Comm sub;
    MPI_Comm_group(world, &world_group);
    MPI_Group_incl(world_group, members < 64 ? members : 64, ranks, &sub_group);
    MPI_Comm_create(world, sub_group, &sub);
    if (sub != MPI_COMM_NULL) {
        run_matrix(sub, "group-reversed", 1);
        MPI_Comm_free(&sub);
    }
    MPI_Group_free(&sub_group);
    MPI_Group_free(&world_group);

#ifdef TANDEM_TEST_THROUGH_MPI
    /* every call went to Tandem: the interposer's counter says so */
    void (*counts)(unsigned long *, unsigned long *) =
        (void (*)(unsigned long *, unsigned long *))dlsym(RTLD_DEFAULT, "tdm_ip_counts");
    unsigned long served = 0, native = 0;
    if (counts)
        counts(&served, &native);
    check(counts && served > 1000 && native == 0, "the interposer served %lu calls, passed %lu to MPI", served,
          native);
#endif
    if (dcp_mode) /* the DCPs served calls (not all: user ops, and scans on reordered ranks, run here) */
        check(dcp_served > 0, "dcp progress: the DCPs served no call");
    for (int i = 0; i < nowned_types; i++)
        MPI_Type_free(&owned_types[i]);
    for (int i = 0; i < nowned_ops; i++)
        MPI_Op_free(&owned_ops[i]);
    return harness_finish();
}
