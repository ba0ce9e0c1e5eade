/*
 * The CPU overhead model counts each rank's work from its schedule (src/model/cpu_overhead.h): here
 * its counts, for every collective on every rank, against what the rank then does in MPI while the
 * call runs: its MPI_Isend and MPI_Irecv calls and their bytes, and the bytes MPI_Reduce_local
 * combines, counted by wrappers of those three functions (the library calls them by their MPI names);
 * and the overheads per message between the sizes measured. The reductions use MPI_BXOR: sums and the
 * other common ops Tandem applies itself (engine/local_reduce.c), unseen by a wrapper.
 */
#include "harness.h"

#include "../src/base/state.h"
#include "../src/core/request.h"
#include "../src/select/select_estimate.h"

#include <math.h>
#include <string.h>

static struct {
    int sends, recvs;
    double sent, received, reduced;
} seen;

static double bytes_of(int count, MPI_Datatype type)
{
    int size;
    PMPI_Type_size(type, &size);
    return (double)count * size;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    seen.sends++;
    seen.sent += bytes_of(count, type);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    seen.recvs++;
    seen.received += bytes_of(count, type);
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    seen.reduced += bytes_of(count, type);
    return PMPI_Reduce_local(in, inout, count, type, op);
}

enum { MAX_RANKS = 32, N = 1000 };
static int rank, size;
static int in[MAX_RANKS * N], out[MAX_RANKS * N], counts[MAX_RANKS], displs[MAX_RANKS], from[MAX_RANKS];

static const char *const names[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter",
                                    "scatterv", "allgather", "allgatherv", "reduce_scatter", "reduce_scatter_block",
                                    "alltoall", "alltoallv", "scan", "exscan"};
#define NCALLS (int)(sizeof names / sizeof names[0])

/* Starts collective k of names on n ints per block (the v-forms: n, n + 1 or n + 2). */
static int start(int k, int n, MPI_Comm comm, TDM_Request *req)
{
    int root = size - 1;
    for (int r = 0; r < size; r++) /* rank r's block n + r % 3 ints, and (alltoallv) its block from r */
        counts[r] = n + r % 3, displs[r] = r * (n + 2), from[r] = n + rank % 3;
    switch (k) {
    case 0: return TDM_Ibarrier(comm, req);
    case 1: return TDM_Ibcast(out, n, MPI_INT, root, comm, req);
    case 2: return TDM_Ireduce(in, out, n, MPI_INT, MPI_BXOR, root, comm, req);
    case 3: return TDM_Iallreduce(in, out, n, MPI_INT, MPI_BXOR, comm, req);
    case 4: return TDM_Igather(in, n, MPI_INT, out, n, MPI_INT, root, comm, req);
    case 5: return TDM_Igatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, root, comm, req);
    case 6: return TDM_Iscatter(in, n, MPI_INT, out, n, MPI_INT, root, comm, req);
    case 7: return TDM_Iscatterv(in, counts, displs, MPI_INT, out, counts[rank], MPI_INT, root, comm, req);
    case 8: return TDM_Iallgather(in, n, MPI_INT, out, n, MPI_INT, comm, req);
    case 9: return TDM_Iallgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, comm, req);
    case 10: return TDM_Ireduce_scatter(in, out, counts, MPI_INT, MPI_BXOR, comm, req);
    case 11: return TDM_Ireduce_scatter_block(in, out, n, MPI_INT, MPI_BXOR, comm, req);
    case 12: return TDM_Ialltoall(in, n, MPI_INT, out, n, MPI_INT, comm, req);
    case 13: return TDM_Ialltoallv(in, counts, displs, MPI_INT, out, from, displs, MPI_INT, comm, req);
    case 14: return TDM_Iscan(in, out, n, MPI_INT, MPI_BXOR, comm, req);
    default: return TDM_Iexscan(in, out, n, MPI_INT, MPI_BXOR, comm, req);
    }
}

/* The model builds a call as the library does, in lanes if the library does (the torus bucket's chains on
 * the network's torus, TANDEM_TORUS_DIMS): its counts of this rank's work against the call's live
 * schedules', for the allgather on the torus of N ints a block (blocks of bytes in the model: 4000 split
 * among lanes and sub-colors as 1000 ints do; 7 ints would not). Returns 1 if the call ran in lanes. */
static int against_model(struct tdm_request *req, int n, const tdm_rank_work *live)
{
    const tdm_schedule *s = req->run.exec.sched;
    const char *prefix = "allgather_torus_bucket";
    if (n != N || strncmp(s->algorithm, prefix, strlen(prefix)) != 0)
        return 0;
    tdm_torus torus = {.ndims = s->torus_ndims};
    memcpy(torus.dims, s->torus_dims, sizeof(int) * (size_t)s->torus_ndims);
    tdm_rank_work work[MAX_RANKS];
    tdm_cpu_costs costs = {0};
    tdm_cpu_estimate e;
    int rc = tdm_select_estimate("allgather", s->algorithm + strlen("allgather_"), size, 1, (double)n * sizeof(int),
                                 &tdm_global.loggp, &torus, NULL, &costs, work, &e);
    const tdm_rank_work *m = &work[rank];
    check(rc == MPI_SUCCESS && m->sends == live->sends && m->recvs == live->recvs &&
              m->sent_bytes == live->sent_bytes && m->received_bytes == live->received_bytes,
          "%s of %d ints, rank %d: the model counts %d sends (%.0f B), %d receives (%.0f B); the live schedules "
          "%d (%.0f B), %d (%.0f B)", s->algorithm, n, rank, m->sends, m->sent_bytes, m->recvs, m->received_bytes,
          live->sends, live->sent_bytes, live->recvs, live->received_bytes);
    return req->run.lane_next != NULL;
}

int main(int argc, char **argv)
{
    harness_init("test_cpu_overhead", &argc, &argv);
    MPI_Comm comm = TDM_Comm_world();
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    check(size <= MAX_RANKS, "at most %d ranks", MAX_RANKS);
    /* o_s(s), o_r(s) between the sizes measured: linear, the first below them, the last two's line past them */
    tdm_loggp_params p = {.nsizes = 3};
    double at[3] = {1, 101, 1101}, o_s[3] = {1e-6, 2e-6, 12e-6}, o_r[3] = {3e-6, 3e-6, 1e-6};
    for (int i = 0; i < 3; i++)
        p.size[i].bytes = at[i], p.size[i].o_s.median = o_s[i], p.size[i].o_r.median = o_r[i];
    double want[][3] = {{0, 1e-6, 3e-6}, {51, 1.5e-6, 3e-6}, {601, 7e-6, 2e-6}, {2101, 22e-6, 0}};
    for (int i = 0; i < 4; i++)
        check(fabs(tdm_loggp_overhead_at(&p, want[i][0], 0) - want[i][1]) < 1e-12 &&
                  fabs(tdm_loggp_overhead_at(&p, want[i][0], 1) - want[i][2]) < 1e-12,
              "o_s, o_r at %.0f bytes: %g, %g, not %g, %g", want[i][0], tdm_loggp_overhead_at(&p, want[i][0], 0),
              tdm_loggp_overhead_at(&p, want[i][0], 1), want[i][1], want[i][2]);
    /* ... and as tandem-model loggp --save writes them, read back */
    FILE *f = tmpfile();
    tdm_loggp_params back;
    p.L = 1e-6, p.o_s = o_s[0], p.o_r = o_r[0], p.g = 3e-6, p.G = 1e-9;
    check(f && tdm_loggp_prtt_write(f, &p) && fseek(f, 0, SEEK_SET) == 0 && tdm_loggp_prtt_read(f, &back) &&
              back.nsizes == 3 && back.L == p.L && back.G == p.G && back.size[2].bytes == at[2] &&
              fabs(back.size[1].o_s.median - o_s[1]) < 1e-12 && fabs(back.size[2].o_r.median - o_r[2]) < 1e-12,
          "the LogGP table does not read back as written");
    if (f)
        fclose(f);
    const int lengths[] = {1, 7, N}; /* ints per block */
    int in_lanes = 0;
    /* the communicator's first collective agrees its slot of Tandem's tags first: messages not counted
     * in the call's schedule (engine/shadow_slots.h) */
    CHECK_TDM(TDM_Barrier(comm));
    for (int l = 0; l < 3 && size <= MAX_RANKS; l++)
        for (int k = 0; k < NCALLS; k++) {
            TDM_Request req = NULL;
            memset(&seen, 0, sizeof seen);
            int rc = start(k, lengths[l], comm, &req);
            check(rc == MPI_SUCCESS, "%s of %d ints: %s", names[k], lengths[l], TDM_Last_error());
            if (rc != MPI_SUCCESS)
                continue;
            tdm_rank_work w = {0}, lane;
            for (const tdm_run *r = &req->run; r; r = r->lane_next) { /* the call's lanes, if it has several */
                tdm_rank_work_of(r->exec.sched, 0, NULL, &lane);
                w.sends += lane.sends, w.recvs += lane.recvs, w.sent_bytes += lane.sent_bytes;
                w.received_bytes += lane.received_bytes, w.reduced_bytes += lane.reduced_bytes;
            }
            in_lanes += against_model(req, lengths[l], &w);
            CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
            check(w.sends == seen.sends && w.recvs == seen.recvs && w.sent_bytes == seen.sent &&
                      w.received_bytes == seen.received && w.reduced_bytes == seen.reduced,
                  "%s of %d ints, rank %d: the model counts %d sends (%.0f B), %d receives (%.0f B), %.0f B reduced; "
                  "MPI saw %d (%.0f B), %d (%.0f B), %.0f B",
                  names[k], lengths[l], rank, w.sends, w.sent_bytes, w.recvs, w.received_bytes, w.reduced_bytes,
                  seen.sends, seen.sent, seen.recvs, seen.received, seen.reduced);
        }
    const char *torus = getenv("TANDEM_TORUS_DIMS");
    check(!torus || in_lanes, "TANDEM_TORUS_DIMS=%s: no allgather ran in lanes: the model's lanes untested", torus);
    return harness_finish();
}
