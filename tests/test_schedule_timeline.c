/*
 * The timeline model of a collective's latency (src/model/schedule_timeline.h) on schedules built by
 * hand and costs worked out by hand. The table has one size: o_s 0.1, o_r 0.3, a one-way time of 1.0
 * (o_s and o_r included: 0.9 from a send's departure to its arrival, its receive's o_r overlapping),
 * and a gap of 0.3 that does not grow with the bytes (the link is never busy), unless said.
 *
 * chain: 0 -> 1 -> 2, a round each: rank 1's send leaves at 1.0 + 0.1, arrives at 2.0.
 * receives: rank 0 receives from 1, 2 and 3 at once; all arrive at 1.0, and each takes o_r of its CPU
 *   in turn: 1.0, 1.3, 1.6.
 * rendezvous: rank 1 receives from 2 (round 0), then from 0 (round 1), which sent at once. Eager, 0's
 *   message has arrived when its receive is posted at 1.0: done at 1.0 + 0.3. Above the eager limit it
 *   starts only then: 1.0 + 0.9 = 1.9.
 * links: two sends of 1000 bytes (one-way 2.0, gap 1.3: their bytes hold a link 1.0) from rank 0, on
 *   one port: the second leaves at 0.1 + 1.0 = 1.1, arrives at 1.1 + 1.9 = 3.0; on two torus links,
 *   side by side: it leaves at 0.2 and arrives at 2.1.
 * sharing: rank 0 sends 1000 bytes to 1 and then 8 to 2; rank 2 then sends 8 to 1, which receives it
 *   after 0's. On the port the short message waits for the long one's bytes: it arrives at 1.1 + 0.9,
 *   rank 2's at 2.1 + 0.9 = 3.0. On one torus link the two share it: the short one arrives at 0.2 +
 *   0.9 = 1.1 (its bytes take none of the link), the long one at 0.1 + 1.9 = 2.0, rank 2's at 2.1,
 *   which rank 1 receives after the long one's o_r: at 2.3.
 * a dimension of two ranks: rank 0 sends 1000 bytes to rank 1 each way (links 0 and 1). One link: the
 *   first alone from 0.1, then both at half speed from 0.2: the first ends at 2.0, the second at 2.1,
 *   arriving at 2.9 and 3.0, received by 3.2; two would give 2.0 and 2.1: 2.3.
 * routes: unnamed sends on a ring of 4 take their first hop's link: to 1 and to 3, two links (as
 *   "links", 2.1); to 1 and to 2 (2 hops, +L: the tie goes up), one link shared: 3.0 and 3.0 + 0.5.
 * past the first hop: on a bidirectional ring of 4, ranks 0 and 1 each send 1000 bytes to 2; 0's route
 *   (0 -> 1 -> 2) shares 1's link up with 1's message. Both from 0.1 at half speed: through at 2.1, a
 *   delay of 1.0; they arrive at 0.1 + 1.9 + 1.0 = 3.0 and (one hop more) 3.5, the latency. From 3
 *   instead of 1 (3 -> 2, another link) nothing is shared: 2.0 and 2.5.
 * both ways: ranks 0 and 1 send 1000 bytes to each other. A unidirectional ring has one link between
 *   them, shared: both arrive at 3.0; a bidirectional one a link each way: 2.0.
 * reduction first: ranks 0 and 1 swap 8 bytes (round 0: both arrive at 1.0), then each reduces what
 *   came (1.0 of CPU), sends the result and receives again, rank 0 into the buffer it just reduced.
 *   The reduction runs when reached, before the send: sends at 2.1, arrivals at 3.0, on both ranks
 *   alike (taking rank 0's reduction to wait for its round's receive made it 4.0).
 * out of order: rank 0 receives from 1, then sends to 2; 1 sends to 0 and receives from 2; 2 sends to 1
 *   and receives from 0. A pass over the ranks in order finishes no round (each waits for a later
 *   rank's send) but reaches every rank's: the next finishes them. 0's message leaves at 1.1: 2.0.
 * rendezvous sender: everything above the eager limit (0). Rank 0 sends 1000 bytes to 1, which posts its
 *   receive only at 1.0 (after 2's message); 0's bytes take 1.0 from then, so 0's next round, a send to
 *   2, starts at 2.0: it arrives at 2.1 + 0.9 = 3.0 (taking 0's round to end when its bytes left its
 *   hands at 1.1 gave 2.9, rank 1's arrival).
 * unmatched: a receive that no send matches is an error, not a hang; so is a torus of another size.
 */
#include "../src/model/schedule_timeline.h"

#include <math.h>
#include <stdio.h>

static int checks, failures;
static double buf[1000];
static double gamma_per_byte; /* the reductions' cost: 0 but in "reduction first" */

static void expect(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s\n", what);
    }
}

static tdm_loggp_params table(int growing_gap)
{
    tdm_loggp_params p = {.L = 0.5, .o_s = 0.1, .o_r = 0.3, .g = 0.3, .nsizes = growing_gap ? 2 : 1};
    p.size[0] = (tdm_loggp_size){.bytes = 8, .rtt = {2.0, 0}, .gap = {0.3, 0}, .o_s = {0.1, 0}, .o_r = {0.3, 0}};
    p.size[1] = (tdm_loggp_size){.bytes = 1000, .rtt = {4.0, 0}, .gap = {1.3, 0}, .o_s = {0.1, 0}, .o_r = {0.3, 0}};
    return p;
}

typedef struct {
    int p;
    tdm_schedule s[4];
} job;

static void begin(job *j, int p)
{
    j->p = p;
    for (int r = 0; r < p; r++)
        tdm_sched_init(&j->s[r], "by hand", r, p);
}

/* The job's latency, or -1 if the timeline refused it. */
static double latency_on(job *j, int growing_gap, double eager_limit, const tdm_torus *t, int *rc)
{
    tdm_loggp_params p = table(growing_gap);
    tdm_cpu_costs c = {.gamma = gamma_per_byte, .copy = 0, .call = 0, .eager_limit = eager_limit};
    tdm_timeline *tl = tdm_timeline_new(j->p);
    double latency = -1;
    *rc = MPI_ERR_NO_MEM;
    if (tl) {
        *rc = MPI_SUCCESS;
        for (int r = 0; r < j->p && *rc == MPI_SUCCESS; r++)
            *rc = tdm_sched_finish(&j->s[r]) == MPI_SUCCESS ? tdm_timeline_add(tl, &j->s[r], 8, &p, &c, t)
                                                            : MPI_ERR_INTERN;
        if (*rc == MPI_SUCCESS)
            *rc = tdm_timeline_latency(tl, &latency);
        tdm_timeline_free(tl);
    }
    for (int r = 0; r < j->p; r++)
        tdm_sched_destroy(&j->s[r]);
    return *rc == MPI_SUCCESS ? latency : -1;
}

static double latency_of(job *j, int growing_gap, double eager_limit, int *rc)
{
    return latency_on(j, growing_gap, eager_limit, NULL, rc);
}

static void expect_latency_on(job *j, int growing_gap, const tdm_torus *t, double want, const char *what)
{
    int rc;
    double got = latency_on(j, growing_gap, 1e9, t, &rc);
    if (rc != MPI_SUCCESS || fabs(got - want) > 1e-9)
        fprintf(stderr, "%s: got %.12g (rc %d), expected %.12g\n", what, got, rc, want);
    expect(rc == MPI_SUCCESS && fabs(got - want) <= 1e-9, what);
}

static void expect_latency(job *j, int growing_gap, double eager_limit, double want, const char *what)
{
    int rc;
    double got = latency_of(j, growing_gap, eager_limit, &rc);
    if (rc != MPI_SUCCESS || fabs(got - want) > 1e-9)
        fprintf(stderr, "%s: got %.12g (rc %d), expected %.12g\n", what, got, rc, want);
    expect(rc == MPI_SUCCESS && fabs(got - want) <= 1e-9, what);
}

static void chain(void)
{
    job j;
    begin(&j, 3);
    tdm_sched_send(&j.s[0], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_recv(&j.s[1], buf, 1, MPI_DOUBLE, 0);
    tdm_sched_round(&j.s[1]);
    tdm_sched_send(&j.s[1], buf, 1, MPI_DOUBLE, 2);
    tdm_sched_recv(&j.s[2], buf, 1, MPI_DOUBLE, 1);
    expect_latency(&j, 0, 1e9, 2.0, "chain 0 -> 1 -> 2");
}

static void receives_in_turn(void)
{
    job j;
    begin(&j, 4);
    for (int r = 1; r < 4; r++) {
        tdm_sched_recv(&j.s[0], buf + r, 1, MPI_DOUBLE, r);
        tdm_sched_send(&j.s[r], buf, 1, MPI_DOUBLE, 0);
    }
    expect_latency(&j, 0, 1e9, 1.6, "three receives at once, o_r each in turn");
}

static void rendezvous(double eager_limit, double want, const char *what)
{
    job j;
    begin(&j, 3);
    tdm_sched_send(&j.s[0], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_recv(&j.s[1], buf, 1, MPI_DOUBLE, 2);
    tdm_sched_round(&j.s[1]);
    tdm_sched_recv(&j.s[1], buf + 1, 1, MPI_DOUBLE, 0);
    tdm_sched_send(&j.s[2], buf, 1, MPI_DOUBLE, 1);
    expect_latency(&j, 0, eager_limit, want, what);
}

static void links(int side_by_side, double want, const char *what)
{
    job j;
    begin(&j, 3);
    for (int peer = 1; peer < 3; peer++) {
        if (side_by_side)
            tdm_sched_send_on_link(&j.s[0], buf, 125, MPI_DOUBLE, peer, peer);
        else
            tdm_sched_send(&j.s[0], buf, 125, MPI_DOUBLE, peer);
        tdm_sched_recv(&j.s[peer], buf, 125, MPI_DOUBLE, 0);
    }
    expect_latency(&j, 1, 1e9, want, what);
}

static void sharing(int on_link, double want, const char *what)
{
    job j;
    begin(&j, 3);
    tdm_sched_send_on_link(&j.s[0], buf, 125, MPI_DOUBLE, 1, on_link ? 0 : -1);
    tdm_sched_send_on_link(&j.s[0], buf, 1, MPI_DOUBLE, 2, on_link ? 0 : -1);
    tdm_sched_recv(&j.s[2], buf, 1, MPI_DOUBLE, 0);
    tdm_sched_round(&j.s[2]);
    tdm_sched_send(&j.s[2], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_recv(&j.s[1], buf, 125, MPI_DOUBLE, 0);
    tdm_sched_round(&j.s[1]);
    tdm_sched_recv(&j.s[1], buf + 200, 1, MPI_DOUBLE, 2);
    expect_latency(&j, 1, 1e9, want, what);
}

static void dimension_of_two(int length, double want, const char *what)
{
    job j;
    begin(&j, 2);
    for (int direction = 0; direction < 2; direction++) {
        tdm_sched_send_on_link(&j.s[0], buf, 125, MPI_DOUBLE, 1, direction);
        tdm_sched_recv(&j.s[1], buf + 200 * direction, 125, MPI_DOUBLE, 0);
    }
    j.s[0].torus_ndims = 1, j.s[0].torus_dims[0] = length;
    expect_latency(&j, 1, 1e9, want, what);
}

static void routes(int second_peer, double want, const char *what)
{
    job j;
    begin(&j, 4);
    for (int peer = 1; peer < 4; peer++) {
        int to = peer == 1 || peer == second_peer;
        if (to) {
            tdm_sched_send(&j.s[0], buf, 125, MPI_DOUBLE, peer);
            tdm_sched_recv(&j.s[peer], buf, 125, MPI_DOUBLE, 0);
        }
    }
    tdm_torus ring = {.ndims = 1, .dims = {4}};
    expect_latency_on(&j, 1, &ring, want, what);
}

static void past_first_hop(int other, double want, const char *what)
{
    job j;
    begin(&j, 4);
    int senders[2] = {0, other};
    for (int i = 0; i < 2; i++) {
        tdm_sched_send(&j.s[senders[i]], buf, 125, MPI_DOUBLE, 2);
        tdm_sched_recv(&j.s[2], buf + 200 * i, 125, MPI_DOUBLE, senders[i]);
    }
    tdm_torus ring = {.ndims = 1, .dims = {4}, .bidirectional = 1};
    expect_latency_on(&j, 1, &ring, want, what);
}

static void both_ways(int bidirectional, double want, const char *what)
{
    job j;
    begin(&j, 4);
    for (int r = 0; r < 2; r++) {
        tdm_sched_send(&j.s[r], buf, 125, MPI_DOUBLE, 1 - r);
        tdm_sched_recv(&j.s[r], buf + 200, 125, MPI_DOUBLE, 1 - r);
    }
    tdm_torus ring = {.ndims = 1, .dims = {4}, .bidirectional = bidirectional};
    expect_latency_on(&j, 1, &ring, want, what);
}

static void reduction_first(void)
{
    job j;
    begin(&j, 2);
    for (int r = 0; r < 2; r++) {
        double *in = buf + 10 * r, *sum = buf + 10 * r + 1, *again = r == 0 ? in : buf + 10 * r + 2;
        tdm_sched_send(&j.s[r], sum, 1, MPI_DOUBLE, 1 - r);
        tdm_sched_recv(&j.s[r], in, 1, MPI_DOUBLE, 1 - r);
        tdm_sched_round(&j.s[r]);
        tdm_sched_reduce(&j.s[r], in, sum, 1, MPI_DOUBLE, MPI_SUM);
        tdm_sched_send(&j.s[r], sum, 1, MPI_DOUBLE, 1 - r);
        tdm_sched_recv(&j.s[r], again, 1, MPI_DOUBLE, 1 - r);
    }
    gamma_per_byte = 1.0 / 8;
    expect_latency(&j, 0, 1e9, 3.0, "a reduction before the round's send: the receive overlaps it");
    gamma_per_byte = 0;
}

static void out_of_order(void)
{
    job j;
    begin(&j, 3);
    tdm_sched_recv(&j.s[0], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_round(&j.s[0]);
    tdm_sched_send(&j.s[0], buf, 1, MPI_DOUBLE, 2);
    tdm_sched_send(&j.s[1], buf, 1, MPI_DOUBLE, 0);
    tdm_sched_recv(&j.s[1], buf + 1, 1, MPI_DOUBLE, 2);
    tdm_sched_send(&j.s[2], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_recv(&j.s[2], buf + 1, 1, MPI_DOUBLE, 0);
    expect_latency(&j, 0, 1e9, 2.0, "no round ends in the first pass, every one is reached: not stuck");
}

static void rendezvous_sender(void)
{
    job j;
    begin(&j, 3);
    tdm_sched_send(&j.s[0], buf, 125, MPI_DOUBLE, 1);
    tdm_sched_round(&j.s[0]);
    tdm_sched_send(&j.s[0], buf, 1, MPI_DOUBLE, 2);
    tdm_sched_recv(&j.s[1], buf, 1, MPI_DOUBLE, 2);
    tdm_sched_round(&j.s[1]);
    tdm_sched_recv(&j.s[1], buf + 200, 125, MPI_DOUBLE, 0);
    tdm_sched_send(&j.s[2], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_round(&j.s[2]);
    tdm_sched_recv(&j.s[2], buf + 1, 1, MPI_DOUBLE, 0);
    expect_latency(&j, 1, 0, 3.0, "a rendezvous's sender waits for its receive to be posted");
}

static void unmatched(void)
{
    job j;
    begin(&j, 2);
    tdm_sched_recv(&j.s[0], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_send(&j.s[1], buf, 1, MPI_DOUBLE, 0);
    tdm_sched_round(&j.s[1]);
    tdm_sched_recv(&j.s[1], buf, 1, MPI_DOUBLE, 0); /* no send of rank 0 matches it */
    int rc;
    latency_of(&j, 0, 1e9, &rc);
    expect(rc == MPI_ERR_INTERN, "a receive no send matches: MPI_ERR_INTERN");
    begin(&j, 3);
    tdm_sched_send(&j.s[0], buf, 1, MPI_DOUBLE, 1);
    tdm_sched_recv(&j.s[1], buf, 1, MPI_DOUBLE, 0);
    tdm_torus ring = {.ndims = 1, .dims = {4}};
    latency_on(&j, 0, 1e9, &ring, &rc);
    expect(rc == MPI_ERR_ARG, "3 ranks on a torus of 4: MPI_ERR_ARG");
}

int main(void)
{
    chain();
    receives_in_turn();
    rendezvous(1e9, 1.3, "eager: arrived before its receive");
    rendezvous(0, 1.9, "rendezvous: starts when its receive is posted");
    links(0, 3.0, "two sends on one port: the second waits for the first's bytes");
    links(1, 2.1, "two sends on two links: side by side");
    sharing(0, 3.0, "a short message after a long one on the port: it waits for the long one's bytes");
    sharing(1, 2.3, "a short message and a long one on one torus link: they share it");
    dimension_of_two(2, 3.2, "both ways along a dimension of two ranks: one link");
    dimension_of_two(4, 2.3, "both ways along a dimension of four ranks: two links");
    routes(3, 2.1, "unnamed sends on a ring, to 1 and 3: the first hops' links, side by side");
    routes(2, 3.5, "unnamed sends on a ring, to 1 and 2: one first link, shared");
    past_first_hop(1, 3.5, "0 -> 2 and 1 -> 2 on a ring: the link past 0's first hop shared");
    past_first_hop(3, 2.5, "0 -> 2 and 3 -> 2 on a ring: no link shared");
    both_ways(0, 3.0, "0 <-> 1 on a unidirectional ring: one link, shared");
    both_ways(1, 2.0, "0 <-> 1 on a bidirectional ring: a link each way");
    reduction_first();
    out_of_order();
    rendezvous_sender();
    unmatched();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
