/*
 * The torus bucket schedules against the formulas, without MPI (the builders are pure functions): every
 * rank's schedule of 4x4x4, 8x4x2 and a few smaller tori is built and read back.
 *   - every send travels the link it names, to the neighbour along that dimension and direction, and
 *     no link direction carries two messages in one round: no two colors share a link in a phase;
 *   - the bytes on each link in each phase are (d_q - 1)/d_q of the data the color using that
 *     dimension holds in that phase (n / K shrunk by the dimensions it visited before);
 *   - messages per rank K sum(d_i - 1) per half, reduced bytes (p-1)/p n;
 *   - with one message per step, the schedule-level LogGP cost equals the closed form term by term on
 *     symmetric tori (and so the lower bound); on asymmetric tori its beta term is the sum over rounds
 *     of the largest step, more than the closed form, because rounds advance in step;
 *   - with the steps cut into equal segments (what the model does), every phase costs what its busiest
 *     link carries, max_q (d_q - 1)/d_q of the data, which stays under the closed form;
 *   - a ring schedule costs exactly the ring formula;
 *   - a vector that does not split evenly takes as many rounds as one that does;
 *   - the halfway allgather (each part the shorter way round) does the same with floor(d/2) steps a ring,
 *     each moving a whole group of the color (half of the group opposite at the last step of an even
 *     ring), and the same bytes on every link.
 */
#include "../src/model/loggp.h"
#include "../src/model/schedule_cost.h"
#include "../src/schedule/comm_nodes.h"
#include "../src/select/select.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

static void expect(int ok, const char *what, const char *where)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures <= 20)
            fprintf(stderr, "FAIL: %s (%s)\n", what, where);
    }
}

static int close_to(double got, double want) { return fabs(got - want) <= 1e-9 * (fabs(want) + 1e-30); }

typedef struct {
    const tdm_torus *t; /* dimensions longer than 1 only */
    int bidirectional, halfway, reduce_scatter, allgather;
    long n;
    long seg;           /* elements per segment; 0: one message per step */
    const char *where;
} expectation;

static int phase_dim(int c, int i, int n) { return (i + c) % n; }

/* Steps of a ring of d, and elements of the message of step `step` of one direction (data: what that
 * direction holds of the color; halfway both directions move whole groups of the color, 2 data / d,
 * but the last step of an even ring only half of one). */
static int ring_steps(const expectation *e, int d) { return e->halfway ? d / 2 : d - 1; }

static double step_data(const expectation *e, double data, int d, int step)
{
    if (!e->halfway)
        return data / d;
    return d % 2 == 0 && step == d / 2 - 1 ? data / d : 2 * data / d;
}

/* Elements one direction of the color using dimension q in phase i holds at the start of that phase
 * (halfway: half of the color's, as the bidirectional form's sub-colors). */
static double color_data(const expectation *e, int q, int i)
{
    int nd = e->t->ndims, c = ((q - i) % nd + nd) % nd, k = nd * (e->bidirectional ? 2 : 1);
    double data = (double)e->n / k;
    for (int j = 0; j < i; j++)
        data /= e->t->dims[phase_dim(c, j, nd)];
    return data;
}

/* Segments of the steps of the color on dimension q in phase i, and the rounds of phase i. */
static long segments(const expectation *e, int q, int i)
{
    double group = (e->halfway ? 2 : 1) * color_data(e, q, i) / e->t->dims[q]; /* every step's count, even a half */
    return e->seg ? (long)ceil(group / e->seg) : 1;
}

static long phase_rounds(const expectation *e, int i)
{
    long rounds = 0;
    for (int q = 0; q < e->t->ndims; q++)
        if (ring_steps(e, e->t->dims[q]) * segments(e, q, i) > rounds)
            rounds = ring_steps(e, e->t->dims[q]) * segments(e, q, i);
    return rounds;
}

static int longest(const tdm_torus *t)
{
    int dl = 1;
    for (int i = 0; i < t->ndims; i++)
        dl = t->dims[i] > dl ? t->dims[i] : dl;
    return dl;
}

/* K sum over phases and dimensions of (d_q - 1) segments, per half */
static double expected_messages(const expectation *e)
{
    double m = 0;
    for (int i = 0; i < e->t->ndims; i++)
        for (int q = 0; q < e->t->ndims; q++)
            m += ring_steps(e, e->t->dims[q]) * segments(e, q, i);
    return m * (e->bidirectional ? 2 : 1) * (e->reduce_scatter + e->allgather);
}

/* The busiest link of every phase, max_q (d_q - 1)/d_q of the data of the color on q: what a phase
 * of equal segments costs. */
static double busiest_link_beta(const expectation *e, double beta)
{
    double total = 0;
    for (int i = 0; i < e->t->ndims; i++) {
        double busiest = 0;
        for (int q = 0; q < e->t->ndims; q++) {
            double d = e->t->dims[q], v = (d - 1) / d * color_data(e, q, i);
            busiest = v > busiest ? v : busiest;
        }
        total += busiest * sizeof(double) * beta;
    }
    return total * (e->reduce_scatter + e->allgather);
}

static void visit(const tdm_schedule *s, const tdm_round_load *loads, void *context)
{
    const expectation *e = context;
    const tdm_torus *t = e->t;
    int nd = t->ndims, p = tdm_torus_ranks(t), coord[TDM_TORUS_MAX_DIMS], stride[TDM_TORUS_MAX_DIMS];
    for (int i = nd - 1, st = 1; i >= 0; st *= t->dims[i--]) {
        stride[i] = st;
        coord[i] = s->rank / st % t->dims[i];
    }
    /* links: named, to the right neighbour, one message per link direction per round */
    int wrong_peer = 0, shared = 0, unnamed = 0;
    for (int r = 0; r < s->nrounds; r++) {
        for (int l = 0; l < 2 * nd; l++)
            shared += loads[r].link_messages[l] > 1;
        for (int i = tdm_sched_round_begin(s, r); i < tdm_sched_round_end(s, r); i++) {
            const tdm_action *a = &s->actions[i];
            if (a->kind != TDM_ACT_SEND)
                continue;
            if (a->link < 0 || a->link >= 2 * nd) {
                unnamed++;
                continue;
            }
            int q = a->link / 2, delta = a->link % 2 ? -1 : 1, d = t->dims[q];
            int moved = ((coord[q] + delta) % d + d) % d;
            wrong_peer += a->peer != s->rank + (moved - coord[q]) * stride[q];
            wrong_peer += !e->bidirectional && delta < 0;
        }
    }
    expect(unnamed == 0, "every send of a torus bucket schedule names its link", e->where);
    expect(wrong_peer == 0, "every send goes to the neighbour of the link it names", e->where);
    expect(shared == 0, "no link direction carries two messages in a round", e->where);

    /* bytes per link per phase: the reduce-scatter's phases first */
    int halves = e->reduce_scatter + e->allgather, bad_link = 0;
    long first = 0;
    for (int h = 0; h < halves; h++) {
        int allgather = !e->reduce_scatter || h == 1;
        for (int ph = 0; ph < nd; ph++) {
            int i = allgather ? nd - 1 - ph : ph; /* the allgather runs the phases in reverse */
            long rounds = phase_rounds(e, i);
            for (int l = 0; l < 2 * nd; l++) {
                double bytes = 0;
                for (long r = first; r < first + rounds && r < s->nrounds; r++)
                    bytes += loads[r].link_bytes[l];
                int q = l / 2, d = t->dims[q];
                double want = (l % 2 && !e->bidirectional) ? 0 : (d - 1.0) / d * color_data(e, q, i) * sizeof(double);
                bad_link += !close_to(bytes, want);
            }
            first += rounds;
        }
    }
    expect(bad_link == 0, "bytes per link per phase are (d_q-1)/d_q of the color's data", e->where);

    double messages = 0, reduced = 0;
    for (int r = 0; r < s->nrounds; r++)
        messages += loads[r].messages, reduced += loads[r].reduced_bytes;
    expect(close_to(messages, expected_messages(e)), "messages per rank: K sum(d_i - 1) per half, times segments",
           e->where);
    double want_reduced = e->reduce_scatter ? (p - 1.0) / p * e->n * sizeof(double) : 0;
    expect(close_to(reduced, want_reduced), "bytes reduced per rank (p-1)/p n", e->where);

    /* Local actions come per round and per line of a dimension, not per owner: the allgather copies
     * each sub-color's p parts out of its buffer, and the reduce-scatter's first phase reduces and
     * sends runs of the input, strided along the color's last dimension, folded (schedule.h) a line
     * at a time. Unfolded, 4x4x4 takes 390-420 local actions per rank. */
    int local = 0, k = nd * (e->bidirectional ? 2 : 1), shortest = t->dims[0];
    for (int i = 0; i < s->nactions; i++)
        local += s->actions[i].kind == TDM_ACT_REDUCE || s->actions[i].kind == TDM_ACT_COPY;
    for (int i = 1; i < nd; i++)
        shortest = t->dims[i] < shortest ? t->dims[i] : shortest;
    expect(local <= 2 * k * (s->nrounds + p / shortest + 1), "local actions are folded line by line", e->where);
}

/* The phase-by-phase beta term of the schedules: in round t of phase i the busiest link carries the
 * step of the largest color still active. */
static double phased_beta(const expectation *e, double beta)
{
    const tdm_torus *t = e->t;
    int nd = t->ndims, dl = longest(t);
    double total = 0;
    for (int i = 0; i < nd; i++)
        for (int step = 0; step < ring_steps(e, dl); step++) {
            double busiest = 0;
            for (int q = 0; q < nd; q++)
                if (step < ring_steps(e, t->dims[q]) && step_data(e, color_data(e, q, i), t->dims[q], step) > busiest)
                    busiest = step_data(e, color_data(e, q, i), t->dims[q], step);
            total += busiest * sizeof(double) * beta;
        }
    return total;
}

/* The closed form of the form under test. */
static double closed_form(const expectation *e, tdm_cost_collective c, const tdm_torus *t, double bytes,
                          const tdm_loggp *m)
{
    return e->halfway ? tdm_cost_torus_halfway_allgather(t, bytes, m) : tdm_cost_torus_bucket(c, t, bytes, m);
}

/* form 0: unidirectional, 1: bidirectional, 2: halfway (the allgather only) */
static void torus_case(const char *dims, int form)
{
    int bidirectional = form > 0, halfway = form == 2;
    tdm_torus t;
    tdm_torus_parse(dims, &t);
    t.bidirectional = bidirectional;
    tdm_torus real = t; /* the dimensions longer than 1, as the schedules name them */
    real.ndims = 0;
    for (int i = 0; i < t.ndims; i++)
        if (t.dims[i] > 1)
            real.dims[real.ndims++] = t.dims[i];
    int p = tdm_torus_ranks(&t), k = real.ndims * (bidirectional ? 2 : 1);
    long n = (long)p * k * 12;
    for (int i = 0; i < real.ndims; i++)
        n *= real.dims[i]; /* every group of every phase splits evenly */
    int symmetric = 1;
    for (int i = 1; i < real.ndims; i++)
        symmetric &= real.dims[i] == real.dims[0];
    const char *name = halfway ? "torus_bucket_halfway" : bidirectional ? "torus_bucket" : "torus_bucket_uni";
    struct {
        const char *collective;
        tdm_cost_collective c;
        int rs, ag;
    } calls[3] = {{"reduce_scatter_block", TDM_COST_REDUCE_SCATTER, 1, 0},
                  {"allgather", TDM_COST_ALLGATHER, 0, 1},
                  {"allreduce", TDM_COST_ALLREDUCE, 1, 1}};
    for (int c = 0; c < 3; c++) {
        if (halfway && calls[c].c != TDM_COST_ALLGATHER)
            continue;
        for (int cut = 0; cut < 2; cut++) {
            char where[96];
            snprintf(where, sizeof where, "%s %s on %s%s", calls[c].collective, name, dims, cut ? ", segments" : "");
            long part = n / ((long)p * k); /* one owner's part of a color: divides every step */
            expectation e = {&real, bidirectional, halfway, calls[c].rs, calls[c].ag, n, cut ? part : 0, where};
            size_t segment_bytes = cut ? (size_t)part * sizeof(double) : (size_t)1 << 40;
            tdm_algorithm_fn build = tdm_select_builder(calls[c].collective, name);
            tdm_loggp beta_only = {0, 1e-9, 0, 0, 0, 0}, alpha_only = {1e-6, 0, 0, 0, 0, 0}, gamma_only = {0, 0, 1e-10, 0, 0, 0};
            tdm_schedule_cost cost;
            double bytes = (double)n * sizeof(double);
            int rc = tdm_cost_call(build, calls[c].c, &t, n, segment_bytes, &beta_only, &cost, visit, &e);
            expect(rc == MPI_SUCCESS, "schedules build", where);
            double formula = closed_form(&e, calls[c].c, &t, bytes, &beta_only);
            double bound = tdm_cost_lower_bound(calls[c].c, &t, bytes, &beta_only);
            if (cut) {
                expect(close_to(cost.time, busiest_link_beta(&e, 1e-9)), "beta term: each phase its busiest link", where);
                expect(cost.time <= formula * (1 + 1e-12), "beta term: within the closed form", where);
            } else {
                expect(close_to(cost.time, (calls[c].rs + calls[c].ag) * phased_beta(&e, 1e-9)),
                       "beta term: the sum over rounds of the largest step", where);
            }
            if (symmetric) {
                expect(close_to(cost.time, formula), "beta term: the closed form on a symmetric torus", where);
                expect(close_to(cost.time, bound), "beta term: the lower bound on a symmetric torus", where);
            }
            tdm_cost_call(build, calls[c].c, &t, n, segment_bytes, &alpha_only, &cost, NULL, NULL);
            expect(close_to(cost.time, expected_messages(&e) * 1e-6), "alpha term: alpha per message", where);
            if (!cut)
                expect(close_to(cost.time, closed_form(&e, calls[c].c, &t, bytes, &alpha_only)),
                       "alpha term: the closed form", where);
            /* messages started at once share the latency: once per round with messages, and alpha - latency
             * per message */
            double per_message = cost.time;
            tdm_loggp shared = {1e-6, 0, 0, 1e-6, 0, 0}, mixed = {1e-6, 0, 0, 4e-7, 0, 0};
            tdm_cost_call(build, calls[c].c, &t, n, segment_bytes, &shared, &cost, NULL, NULL);
            double per_round = cost.time;
            int one_message_a_round = !e.bidirectional && real.ndims == 1;
            expect(per_round <= per_message * (1 + 1e-12) && (one_message_a_round || per_round < per_message),
                   "shared latency: a round's messages start up together", where);
            tdm_cost_call(build, calls[c].c, &t, n, segment_bytes, &mixed, &cost, NULL, NULL);
            expect(close_to(cost.time, 0.4 * per_round + 0.6 * per_message),
                   "shared latency: once per round, the rest of alpha per message", where);
            if (!cut) {
                expect(close_to(per_round, closed_form(&e, calls[c].c, &t, bytes, &shared)),
                       "shared latency: the closed form (a round per step)", where);
                expect(close_to(cost.time, closed_form(&e, calls[c].c, &t, bytes, &mixed)),
                       "shared latency: the closed form (latency and overhead)", where);
            }
            tdm_cost_call(build, calls[c].c, &t, n, segment_bytes, &gamma_only, &cost, NULL, NULL);
            expect(close_to(cost.time, closed_form(&e, calls[c].c, &t, bytes, &gamma_only)),
                   "gamma term: the closed form", where);
        }
    }
}

/* A vector that does not split evenly (the parts of the sub-colors differ by an element) with the
 * segments the model chooses: as many rounds as an even vector of about the same length, and, for the
 * allgather (which the model does not segment) on symmetric tori, the closed form. Rounding the
 * segment count up once cut the steps one element longer than the others in two, doubling the rounds
 * of their phases (the allgather at 1.5x its closed form on 4x4x4). */
static void uneven_case(const char *dims)
{
    tdm_torus t;
    tdm_torus_parse(dims, &t);
    t.bidirectional = 1;
    int p = tdm_torus_ranks(&t), symmetric = 1;
    for (int i = 1; i < t.ndims; i++)
        symmetric &= t.dims[i] == t.dims[0];
    tdm_loggp m = {1e-6, 1e-10, 1.5e-10, 0, 0, 0};
    const char *collective[3] = {"reduce_scatter_block", "allgather", "allreduce"};
    for (int c = 0; c < 3; c++) {
        char where[96];
        snprintf(where, sizeof where, "%s torus_bucket on %s, uneven vector", collective[c], dims);
        long even = (long)p * 2 * t.ndims * 4096, uneven = even + (long)p * 5; /* per rank: +5, not a multiple of 2N */
        tdm_algorithm_fn build = tdm_select_builder(collective[c], "torus_bucket");
        tdm_schedule_cost cost_even, cost_uneven;
        int rc = tdm_cost_call(build, (tdm_cost_collective)c, &t, even, 0, &m, &cost_even, NULL, NULL);
        rc |= tdm_cost_call(build, (tdm_cost_collective)c, &t, uneven, 0, &m, &cost_uneven, NULL, NULL);
        expect(rc == MPI_SUCCESS, "schedules build", where);
        expect(cost_uneven.rounds == cost_even.rounds, "as many rounds as an even vector", where);
        double formula = tdm_cost_torus_bucket((tdm_cost_collective)c, &t, (double)uneven * sizeof(double), &m);
        if (symmetric && c == TDM_COST_ALLGATHER)
            expect(fabs(cost_uneven.time - formula) <= 1e-3 * formula, "allgather: the closed form", where);
    }
}

/* The ring allgather's first round: within one node a block larger than half the cache is copied first
 * and the first step sends the copy; otherwise the first step sends straight from sendbuf, beside the
 * copy. */
static void ring_allgather_first_round(void)
{
    double send[3], recv[4 * 3]; /* blocks of 24 bytes */
    tdm_coll_args a;
    memset(&a, 0, sizeof a);
    a.kind = TDM_COLL_ALLGATHER;
    a.size = 4;
    a.rank = 1;
    a.sendbuf = send;
    a.recvbuf = recv;
    a.sendcount = a.recvcount = 3;
    a.sendtype = a.recvtype = MPI_DOUBLE;
    a.stype = a.rtype = (tdm_typeinfo){sizeof(double), 0, sizeof(double), sizeof(double), 1};
    a.split_levels = -1;
    struct {
        int shared_memory;
        size_t cache_bytes;
        int copy_first;
        const char *where;
    } cases[] = {{0, 32, 0, "ring allgather, network"},
                 {1, 32, 1, "ring allgather, one node, block over half the cache"},
                 {1, 48, 0, "ring allgather, one node, block of half the cache"},
                 {1, 0, 0, "ring allgather, one node, cache unknown"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int first_copy = cases[k].copy_first;
        const char *where = cases[k].where;
        a.shared_memory = cases[k].shared_memory;
        a.cache_bytes = cases[k].cache_bytes;
        tdm_schedule s;
        tdm_sched_init(&s, "allgather_ring", a.rank, a.size);
        expect(tdm_select_builder("allgather", "ring")(&s, &a) == MPI_SUCCESS && s.nrounds == (first_copy ? 4 : 3),
               first_copy ? "built: a round for the copy, then 3 steps" : "built: 3 steps, the copy in the first",
               where);
        const tdm_action *first = NULL, *copy = NULL;
        for (int i = 0; i < s.nactions; i++) {
            if (!first && s.actions[i].kind == TDM_ACT_SEND)
                first = &s.actions[i];
            if (s.actions[i].kind == TDM_ACT_COPY)
                copy = &s.actions[i];
        }
        expect(copy && copy->src == send && copy->dst == recv + 3, "the own block copied", where);
        expect(first && first->src == (first_copy ? (const void *)(recv + 3) : (const void *)send),
               first_copy ? "the first step sends the copy" : "the first step sends sendbuf", where);
        expect(tdm_sched_round_end(&s, 0) == (first_copy ? 1 : 3),
               first_copy ? "the copy alone in the first round" : "the copy beside the first step", where);
        tdm_sched_destroy(&s);
    }
}

/* TEST_SMALL_TORI (set under sanitizers): the tori of 64 ranks are left out. */
static int wanted(const char *dims)
{
    const char *small = getenv("TEST_SMALL_TORI");
    return !(small && *small) || (strcmp(dims, "4x4x4") != 0 && strcmp(dims, "8x4x2") != 0);
}

/* A round of shm steps costs one hand-off waited for and its cells' bytes copied in and out: a rank
 * that puts 1000 bytes for one reader and gets 1000 bytes back. */
static void shm_round_cost(void)
{
    tdm_schedule s;
    tdm_sched_init(&s, "shm", 0, 2);
    static char in[1000], out[1000];
    static const int reader = 1;
    tdm_sched_shm_put(&s, in, 1000, MPI_BYTE, &reader, 1);
    tdm_sched_shm_get(&s, out, 1000, MPI_BYTE, 1, 0);
    tdm_sched_finish(&s);
    tdm_round_load load;
    tdm_schedule_loads(&s, 1, &load);
    tdm_loggp m = {2e-6, 1e-9, 3e-10, 0, 3e-7, 2e-10};
    double want = 3e-7 + 2000 * 2e-10;
    expect(s.nrounds == 1 && load.shm_waits == 1 && load.shm_bytes == 2000 && load.messages == 0 &&
               fabs(tdm_round_time(&load, &m) - want) < 1e-15,
           "a round of shm steps costs shm_flag and its bytes times shm_beta", "shm");
    m.shm_flag = m.shm_beta = 0;
    want = TDM_LOGGP_DEFAULT_SHM_FLAG + 2000 * TDM_LOGGP_DEFAULT_SHM_BETA;
    expect(fabs(tdm_round_time(&load, &m) - want) < 1e-15, "unmeasured shm costs take the defaults", "shm");
    tdm_sched_destroy(&s);
}

/* A get that reduces a cell with another input costs a reduction, and a copy of that input first
 * unless the two fuse (a common type and op, engine/local_reduce.h): doubles summed fuse, their maximum
 * (MPI's own, for NaN) does not. */
static void reduce_from_cost(void)
{
    static double in[100], out[100];
    struct {
        MPI_Op op;
        int fuses;
    } cases[] = {{MPI_SUM, 1}, {MPI_MAX, 0}};
    for (int i = 0; i < 2; i++) {
        tdm_schedule s;
        tdm_sched_init(&s, "shm", 1, 2);
        tdm_sched_shm_get_reduce_from(&s, in, out, 100, MPI_DOUBLE, cases[i].op, 0, 0);
        tdm_sched_finish(&s);
        tdm_round_load load;
        tdm_schedule_loads(&s, 8, &load);
        double copied = cases[i].fuses ? 0 : 800;
        expect(load.reduced_bytes == 800 && load.copied_bytes == copied &&
                   tdm_action_reduce_fuses(&s.actions[0]) == cases[i].fuses,
               cases[i].fuses ? "a fused get reduces once" : "an unfused get copies its input, then reduces",
               "shm");
        tdm_sched_destroy(&s);
    }
}

int main(void)
{
    shm_round_cost();
    reduce_from_cost();
    const char *uneven_tori[] = {"4x4x4", "2x2x2", "8x4x2", "3x5", "4x4"};
    for (size_t i = 0; i < sizeof uneven_tori / sizeof uneven_tori[0]; i++)
        if (wanted(uneven_tori[i]))
            uneven_case(uneven_tori[i]);

    const char *tori[] = {"4x4x4", "8x4x2", "2x2x2", "3x5", "4x1x4", "6", "2"};
    for (size_t i = 0; i < sizeof tori / sizeof tori[0]; i++)
        for (int form = 0; form < 3 && wanted(tori[i]); form++)
            torus_case(tori[i], form);
    ring_allgather_first_round();

    /* the ring schedule (one segment per step) costs exactly the ring formula */
    tdm_loggp m = {2e-6, 1e-9, 3e-10, 0, 0, 0};
    tdm_torus ring;
    tdm_torus_parse("12", &ring);
    const char *collective[3] = {"reduce_scatter_block", "allgather", "allreduce"};
    for (int c = 0; c < 3; c++) {
        tdm_schedule_cost cost;
        long n = 12 * 1000;
        tdm_cost_call(tdm_select_builder(collective[c], "ring"), (tdm_cost_collective)c, &ring, n, (size_t)1 << 40, &m,
                      &cost, NULL, NULL);
        expect(close_to(cost.time, tdm_cost_ring((tdm_cost_collective)c, 12, (double)n * sizeof(double), &m)),
               "ring schedule = ring formula", collective[c]);
    }
    /* Selection on a network torus uses the shared latency: the 1 MiB allreduce on 8x8x8 (alpha 1 us)
     * takes Rabenseifner when each of the bucket's 6 messages a step pays all of alpha (444 us against
     * 384 us), the torus bucket when they share it (234 us), as SimGrid's torus measured (234.7 us
     * against Rabenseifner's 558). */
    tdm_coll_args a;
    memset(&a, 0, sizeof a);
    a.kind = TDM_COLL_ALLREDUCE;
    a.size = 512;
    a.count = 1 << 17;
    a.datatype = MPI_DOUBLE;
    a.dtype = (tdm_typeinfo){sizeof(double), 0, sizeof(double), sizeof(double), 1};
    a.op = MPI_SUM;
    a.commutative = 1;
    a.split_levels = -1;
    a.torus_ndims = 3;
    a.torus_dims[0] = a.torus_dims[1] = a.torus_dims[2] = 8;
    a.torus_network = 1;
    a.loggp = (tdm_loggp){1e-6, 1e-10, 1.5e-10, 0, 0, 0};
    expect(!strcmp(tdm_select(&a)->full_name, "allreduce_rabenseifner"), "alpha per message: Rabenseifner",
           "selection, 8x8x8, 1 MiB");
    a.loggp.latency = 1e-6;
    expect(!strcmp(tdm_select(&a)->full_name, "allreduce_torus_bucket"), "shared latency: the torus bucket",
           "selection, 8x8x8, 1 MiB");
    a.torus_network = 0;
    expect(strcmp(tdm_select(&a)->full_name, "allreduce_torus_bucket") != 0,
           "no torus bucket unless the torus is the network's", "selection, 8x8x8, 1 MiB");
    /* The allgather of 8 MiB on the network's 8x8x8 takes the halfway form (off the network: the ring). */
    tdm_coll_args g = a;
    g.kind = TDM_COLL_ALLGATHER;
    g.recvcount = g.sendcount = 2048; /* doubles per rank */
    g.rtype = g.stype = g.dtype;
    g.loggp.latency = 1e-6;
    g.torus_network = 1;
    expect(!strcmp(tdm_select(&g)->full_name, "allgather_torus_bucket_halfway"), "the halfway allgather",
           "selection, 8x8x8, 8 MiB allgather");
    g.torus_network = 0;
    expect(!strcmp(tdm_select(&g)->full_name, "allgather_ring"), "the ring off the network's torus",
           "selection, 8x8x8, 8 MiB allgather");
    /* Short allreduces: recursive doubling only while its whole-vector messages stay under 4 KiB (Open
     * MPI's shared-memory eager limit); from there the halving algorithms, on 2 ranks as on 512. */
    a.loggp = tdm_loggp_defaults();
    for (int size = 2; size <= 512; size *= 16) {
        a.size = size;
        a.count = 500; /* 4000 B */
        expect(!strcmp(tdm_select(&a)->full_name, "allreduce_recursive_doubling"), "4000 B: recursive doubling",
               "selection, short allreduce");
        a.count = 512; /* 4096 B */
        expect(strcmp(tdm_select(&a)->full_name, "allreduce_recursive_doubling") != 0,
               "4096 B: not recursive doubling", "selection, short allreduce");
    }
    /* Long data on one node: the node-aware forms (two copies a byte, through cells) where 2 shm_beta <
     * beta, the point-to-point ones (a message: one copy) where not, as with the built-in values; short
     * data through cells always. */
    tdm_comm_nodes *one_node = tdm_comm_nodes_blocked(2, 2, 64 << 10);
    expect(one_node != NULL, "tdm_comm_nodes_blocked", "selection on a node");
    if (one_node) {
        tdm_coll_args n = a;
        n.size = 2;
        n.nodes = one_node;
        n.torus_ndims = 0;
        n.count = 1 << 17; /* 1 MiB of doubles */
        tdm_coll_args gath = n;
        gath.kind = TDM_COLL_GATHER;
        gath.count = 0;
        gath.sendcount = gath.recvcount = 1 << 17;
        gath.stype = gath.rtype = n.dtype;
        tdm_coll_args allg = gath;
        allg.kind = TDM_COLL_ALLGATHER;
        const double shm_betas[] = {0, 4.9e-11, 5.1e-11}; /* 0: the built-in 1e-10 */
        for (int i = 0; i < 3; i++) {
            n.loggp = tdm_loggp_defaults(); /* beta 1e-10 */
            n.loggp.shm_beta = shm_betas[i];
            gath.loggp = allg.loggp = n.loggp;
            int cells = 2 * tdm_loggp_shm_beta(&n.loggp) < n.loggp.beta;
            expect(cells == (i == 1), "the cells cheaper than messages below shm_beta = beta / 2", "selection on a node");
            expect((strcmp(tdm_select(&n)->full_name, "allreduce_node") == 0) == cells, "1 MiB allreduce: node iff cells win",
                   "selection on a node");
            expect((strcmp(tdm_select(&gath)->full_name, "gather_node") == 0) == cells, "1 MiB blocks: node iff cells win",
                   "selection on a node, gather");
            expect((strcmp(tdm_select(&allg)->full_name, "allgather_node") == 0) == cells, "1 MiB blocks: node iff cells win",
                   "selection on a node, allgather");
            tdm_coll_args b = n;
            b.kind = TDM_COLL_BCAST;
            expect((strcmp(tdm_select(&b)->full_name, "bcast_node") == 0) == cells, "1 MiB bcast: node iff cells win",
                   "selection on a node, bcast");
            n.count = 1 << 10; /* 8 KiB */
            expect(!strcmp(tdm_select(&n)->full_name, "allreduce_node"), "8 KiB allreduce: node", "selection on a node");
            n.count = 1 << 17;
        }
        free(one_node);
        /* A bcast on a node of 4: against the binomial tree's two rounds, cells win below shm_beta = beta */
        tdm_comm_nodes *four = tdm_comm_nodes_blocked(4, 4, 64 << 10);
        tdm_coll_args b = n;
        b.kind = TDM_COLL_BCAST;
        b.size = 4;
        b.nodes = four;
        b.loggp = tdm_loggp_defaults();
        b.loggp.shm_beta = 0.99e-10;
        expect(four && !strcmp(tdm_select(&b)->full_name, "bcast_node"), "1 MiB bcast on 4: node below shm_beta = beta",
               "selection on a node of 4");
        b.loggp.shm_beta = 1.01e-10;
        expect(four && strcmp(tdm_select(&b)->full_name, "bcast_node") != 0, "1 MiB bcast on 4: flat from shm_beta = beta",
               "selection on a node of 4");
        b.count = 1 << 15; /* 256 KiB */
        b.loggp.shm_beta = 0;
        expect(four && strcmp(tdm_select(&b)->full_name, "bcast_node") != 0, "256 KiB bcast: long", "selection on a node");
        b.count = (1 << 15) - 1;
        expect(four && !strcmp(tdm_select(&b)->full_name, "bcast_node"), "just under 256 KiB bcast: node",
               "selection on a node");
        free(four);
    }
    printf("test_schedule_cost: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures != 0;
}
