/*
 * Every blocking form (TDM_Allreduce, ...) once per algorithm on ints, compared with MPI's own
 * collective. The non-blocking forms are covered in depth by test_collectives.
 */
#include "harness.h"

#include <string.h>

#define N 37

static int rank, size;
static int in[N * 16], ref[N * 16], out[N * 16], counts[16], displs[16];

static void reset(void)
{
    for (int i = 0; i < N * 16; i++)
        in[i] = rank * 1000 + i;
    memset(ref, 0, sizeof ref);
    memset(out, 0, sizeof out);
    for (int i = 0; i < size; i++)
        counts[i] = i % 3 + 1, displs[i] = 4 * i;
}

#define SAME(what) check(memcmp(ref, out, sizeof ref) == 0, "%s (%s) differs from MPI", what, alg)

static void run_all(const char *alg)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int root = size - 1;
    static int bcast_ref[N * 16];
    reset(); REFERENCE(MPI_Ibcast, in, N, MPI_INT, root, w); memcpy(bcast_ref, in, sizeof in);
    reset(); CHECK_TDM(TDM_Bcast(in, N, MPI_INT, root, w));
    check(memcmp(bcast_ref, in, sizeof in) == 0, "TDM_Bcast (%s) differs from MPI", alg);
    reset(); CHECK_TDM(TDM_Barrier(w));
    reset(); REFERENCE(MPI_Ireduce, in, ref, N, MPI_INT, MPI_SUM, root, w); CHECK_TDM(TDM_Reduce(in, out, N, MPI_INT, MPI_SUM, root, w)); SAME("TDM_Reduce");
    reset(); REFERENCE(MPI_Iallreduce, in, ref, N, MPI_INT, MPI_SUM, w); CHECK_TDM(TDM_Allreduce(in, out, N, MPI_INT, MPI_SUM, w)); SAME("TDM_Allreduce");
    reset(); REFERENCE(MPI_Igather, in, N, MPI_INT, ref, N, MPI_INT, root, w); CHECK_TDM(TDM_Gather(in, N, MPI_INT, out, N, MPI_INT, root, w)); SAME("TDM_Gather");
    reset(); REFERENCE(MPI_Igatherv, in, counts[rank], MPI_INT, ref, counts, displs, MPI_INT, root, w);
    CHECK_TDM(TDM_Gatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, w)); SAME("TDM_Gatherv");
    reset(); REFERENCE(MPI_Iscatter, in, N, MPI_INT, ref, N, MPI_INT, root, w); CHECK_TDM(TDM_Scatter(in, N, MPI_INT, out, N, MPI_INT, root, w)); SAME("TDM_Scatter");
    reset(); REFERENCE(MPI_Iscatterv, in, counts, displs, MPI_INT, ref, counts[rank], MPI_INT, root, w);
    CHECK_TDM(TDM_Scatterv(in, counts, displs, MPI_INT, out, counts[rank], MPI_INT, root, w)); SAME("TDM_Scatterv");
    reset(); REFERENCE(MPI_Iallgather, in, N, MPI_INT, ref, N, MPI_INT, w); CHECK_TDM(TDM_Allgather(in, N, MPI_INT, out, N, MPI_INT, w)); SAME("TDM_Allgather");
    reset(); REFERENCE(MPI_Iallgatherv, in, counts[rank], MPI_INT, ref, counts, displs, MPI_INT, w);
    CHECK_TDM(TDM_Allgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, w)); SAME("TDM_Allgatherv");
    reset(); REFERENCE(MPI_Ireduce_scatter, in, ref, counts, MPI_INT, MPI_SUM, w); CHECK_TDM(TDM_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w)); SAME("TDM_Reduce_scatter");
    reset(); REFERENCE(MPI_Ireduce_scatter_block, in, ref, 3, MPI_INT, MPI_SUM, w); CHECK_TDM(TDM_Reduce_scatter_block(in, out, 3, MPI_INT, MPI_SUM, w)); SAME("TDM_Reduce_scatter_block");
    reset(); REFERENCE(MPI_Ialltoall, in, 5, MPI_INT, ref, 5, MPI_INT, w); CHECK_TDM(TDM_Alltoall(in, 5, MPI_INT, out, 5, MPI_INT, w)); SAME("TDM_Alltoall");
    int pair[16]; /* what ranks r and j exchange, either way */
    for (int j = 0; j < size; j++)
        pair[j] = (rank + j) % 3 + 1;
    reset(); REFERENCE(MPI_Ialltoallv, in, pair, displs, MPI_INT, ref, pair, displs, MPI_INT, w);
    CHECK_TDM(TDM_Alltoallv(in, pair, displs, MPI_INT, out, pair, displs, MPI_INT, w)); SAME("TDM_Alltoallv");
    reset(); REFERENCE(MPI_Iscan, in, ref, N, MPI_INT, MPI_SUM, w); CHECK_TDM(TDM_Scan(in, out, N, MPI_INT, MPI_SUM, w)); SAME("TDM_Scan");
    reset(); REFERENCE(MPI_Iexscan, in, ref, N, MPI_INT, MPI_SUM, w); CHECK_TDM(TDM_Exscan(in, out, N, MPI_INT, MPI_SUM, w));
    if (rank > 0)
        SAME("TDM_Exscan");
}

/* A predefined op on a derived datatype of padded pairs (MPI_DOUBLE_INT has extent 16, size 12):
 * two pairs per element, MPI_MAXLOC, against MPI on the same memory seen as plain pairs. */
static void padded_pairs(const char *alg)
{
    typedef struct {
        double v;
        int i;
    } pair_t;
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two);
    MPI_Type_commit(&two);
    pair_t mine[8], got[8], expected[8];
    for (int k = 0; k < 8; k++)
        mine[k] = (pair_t){(double)((rank * 7 + k * 3) % 5), rank};
    memset(got, 0, sizeof got);
    REFERENCE(MPI_Iallreduce, mine, expected, 8, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Allreduce(mine, got, 4, two, MPI_MAXLOC, MPI_COMM_WORLD));
    int same = 1;
    for (int k = 0; k < 8; k++)
        same &= got[k].v == expected[k].v && got[k].i == expected[k].i;
    check(same, "allreduce (%s) of contiguous(2, MPI_DOUBLE_INT) with MPI_MAXLOC differs from MPI", alg);
    MPI_Type_free(&two);
}

/* The same broadcast described differently on each rank: the root sends K/2 elements of a vector of
 * two ints with a gap, the others receive K ints. */
static void bcast_mixed_datatypes(void)
{
    enum { K = 20000 };
    static int root_buf[K / 2 * 3], ints[K];
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    const char *algs[] = {"binomial", "linear", "scatter_allgather"};
    for (int a = 0; a < 3; a++) {
        CHECK_TDM(TDM_Set_algorithm("bcast", algs[a]));
        for (int e = 0; e < K / 2; e++)
            root_buf[3 * e] = 2 * e, root_buf[3 * e + 2] = 2 * e + 1;
        memset(ints, 0, sizeof ints);
        if (rank == 0) {
            CHECK_TDM(TDM_Bcast(root_buf, K / 2, vec, 0, MPI_COMM_WORLD));
        } else {
            CHECK_TDM(TDM_Bcast(ints, K, MPI_INT, 0, MPI_COMM_WORLD));
            int ok = 1;
            for (int e = 0; e < K; e++)
                ok &= ints[e] == e;
            check(ok, "bcast_%s with different datatypes on root and receivers gave wrong data", algs[a]);
        }
    }
    CHECK_TDM(TDM_Set_algorithm("bcast", "auto"));
    MPI_Type_free(&vec);
}

/* Counts whose total passes INT_MAX (a zero-size datatype keeps the memory small): block offsets
 * must not wrap. */
static void huge_counts(void)
{
    MPI_Datatype nothing;
    MPI_Type_contiguous(0, MPI_INT, &nothing);
    MPI_Type_commit(&nothing);
    char one[1], all[1];
    const char *algs[] = {"ring", "bruck", "recursive_doubling"};
    for (int a = 0; a < 3; a++) {
        CHECK_TDM(TDM_Set_algorithm("allgather", algs[a]));
        CHECK_TDM(TDM_Allgather(one, 1 << 30, nothing, all, 1 << 30, nothing, MPI_COMM_WORLD));
    }
    CHECK_TDM(TDM_Set_algorithm("allgather", "auto"));
    CHECK_TDM(TDM_Alltoall(MPI_IN_PLACE, 0, MPI_INT, all, 1 << 30, nothing, MPI_COMM_WORLD));
    MPI_Type_free(&nothing);
}

/* Every predefined op with every predefined datatype MPI defines it for (MPI-3.1 5.9.2), small
 * integer-valued data so that every result is exact, against MPI_Allreduce. */
static void all_predefined_ops(const char *alg)
{
    enum { INT = 1, FLT = 2, LOGIC = 4, CPLX = 8, BYTE = 16, PAIR = 32 };
    struct { MPI_Datatype type; int kind; int size; } types[] = {
        {MPI_INT, INT, sizeof(int)}, {MPI_LONG, INT, sizeof(long)}, {MPI_SHORT, INT, sizeof(short)},
        {MPI_UNSIGNED, INT, sizeof(unsigned)}, {MPI_UNSIGNED_LONG_LONG, INT, 8}, {MPI_SIGNED_CHAR, INT, 1},
        {MPI_UNSIGNED_CHAR, INT, 1}, {MPI_INT8_T, INT, 1}, {MPI_UINT16_T, INT, 2}, {MPI_INT64_T, INT, 8},
        {MPI_FLOAT, FLT, sizeof(float)}, {MPI_DOUBLE, FLT, sizeof(double)},
        {MPI_LONG_DOUBLE, FLT, sizeof(long double)}, {MPI_C_BOOL, LOGIC, sizeof(_Bool)},
        {MPI_C_FLOAT_COMPLEX, CPLX, 2 * sizeof(float)}, {MPI_C_DOUBLE_COMPLEX, CPLX, 2 * sizeof(double)},
        {MPI_BYTE, BYTE, 1}, {MPI_2INT, PAIR, 2 * sizeof(int)}, {MPI_FLOAT_INT, PAIR, 0},
        {MPI_DOUBLE_INT, PAIR, 0}, {MPI_LONG_INT, PAIR, 0}, {MPI_SHORT_INT, PAIR, 0},
    };
    struct { MPI_Op op; int kinds; const char *name; } ops[] = {
        {MPI_MAX, INT | FLT, "max"}, {MPI_MIN, INT | FLT, "min"}, {MPI_SUM, INT | FLT | CPLX, "sum"},
        {MPI_PROD, INT | FLT | CPLX, "prod"}, {MPI_LAND, INT | LOGIC, "land"}, {MPI_LOR, INT | LOGIC, "lor"},
        {MPI_LXOR, INT | LOGIC, "lxor"}, {MPI_BAND, INT | BYTE, "band"}, {MPI_BOR, INT | BYTE, "bor"},
        {MPI_BXOR, INT | BYTE, "bxor"}, {MPI_MAXLOC, PAIR, "maxloc"}, {MPI_MINLOC, PAIR, "minloc"},
    };
    enum { COUNT = 5 };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[t].type, &lb, &extent);
        char data[COUNT * 32], got[COUNT * 32], expected[COUNT * 32];
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            if (!(ops[o].kinds & types[t].kind))
                continue;
            /* values 1..3 (products stay small and exact); pairs get value then index */
            memset(data, 0, sizeof data);
            for (int k = 0; k < COUNT; k++) {
                char *e = data + k * extent;
                int v = 1 + (rank + k) % 3;
                if (types[t].type == MPI_FLOAT || types[t].type == MPI_C_FLOAT_COMPLEX) *(float *)e = (float)v;
                else if (types[t].type == MPI_DOUBLE || types[t].type == MPI_C_DOUBLE_COMPLEX) *(double *)e = v;
                else if (types[t].type == MPI_LONG_DOUBLE) *(long double *)e = v;
                else if (types[t].type == MPI_C_BOOL) *(_Bool *)e = v & 1;
                else if (types[t].type == MPI_2INT) ((int *)e)[0] = v, ((int *)e)[1] = rank;
                else if (types[t].type == MPI_FLOAT_INT) *(float *)e = (float)v, *(int *)(e + sizeof(float)) = rank;
                else if (types[t].type == MPI_DOUBLE_INT) *(double *)e = v, *(int *)(e + sizeof(double)) = rank;
                else if (types[t].type == MPI_LONG_INT) *(long *)e = v, *(int *)(e + sizeof(long)) = rank;
                else if (types[t].type == MPI_SHORT_INT) *(short *)e = (short)v, *(int *)(e + sizeof(int)) = rank;
                else /* integers and bytes: little-endian low byte is enough for 1..3 */
                    *(unsigned char *)e = (unsigned char)v;
            }
            memset(got, 0, sizeof got);
            memset(expected, 0, sizeof expected);
            REFERENCE(MPI_Iallreduce, data, expected, COUNT, types[t].type, ops[o].op, MPI_COMM_WORLD);
            CHECK_TDM(TDM_Allreduce(data, got, COUNT, types[t].type, ops[o].op, MPI_COMM_WORLD));
            /* compare the data bytes only (pair types have padding) */
            int size, pos = 0, pos2 = 0;
            MPI_Type_size(types[t].type, &size);
            char pg[COUNT * 32], pe[COUNT * 32];
            MPI_Pack(got, COUNT, types[t].type, pg, sizeof pg, &pos, MPI_COMM_WORLD);
            MPI_Pack(expected, COUNT, types[t].type, pe, sizeof pe, &pos2, MPI_COMM_WORLD);
            char tname[MPI_MAX_OBJECT_NAME];
            int len;
            MPI_Type_get_name(types[t].type, tname, &len);
            check(pos == pos2 && memcmp(pg, pe, (size_t)pos) == 0, "allreduce (%s) %s on %s differs from MPI", alg,
                  ops[o].name, tname);
        }
    }
}

int main(int argc, char **argv)
{
    harness_init("test_blocking", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run_all("auto");
    bcast_mixed_datatypes();
    huge_counts();
    /* every forced algorithm of every collective, one collective at a time */
    const char *colls[] = {"bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "allgatherv",
                           "reduce_scatter", "alltoall", "alltoallv", "scan", "exscan"};
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
        char names[256];
        snprintf(names, sizeof names, "%s", TDM_Algorithm_names(colls[c]));
        for (char *alg = strtok(names, " "); alg; alg = strtok(NULL, " ")) {
            CHECK_TDM(TDM_Set_algorithm(colls[c], alg));
            run_all(alg);
            if (!strcmp(colls[c], "allreduce")) {
                padded_pairs(alg);
                all_predefined_ops(alg);
            }
        }
        CHECK_TDM(TDM_Set_algorithm(colls[c], "auto"));
    }
    return harness_finish();
}
