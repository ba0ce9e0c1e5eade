#include "schedule_timeline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "torus_route.h"

enum { OP_SEND, OP_RECV, OP_LOCAL };
#define PORT (2 * TDM_TORUS_MAX_DIMS) /* without a torus, sends that name no link share one port */
#define ROUTED (-1)                   /* on a torus, a send takes the links of its route */
#define MAX_PASSES 30 /* replays at most, each sharing the links by the one before's starts */
/* After the first, each replay moves the sends' delays half way to what the one before's sharing gives:
 * taken whole, a pairwise alltoall swings between a crowded pass and a spread one without settling. */
#define DAMPING 0.5

typedef struct {
    int kind, peer, link, seq; /* seq: the message's number among those from its sender to its receiver */
    int rendezvous;            /* a message above the eager limit: it starts once its receive is posted */
    double cpu, gap, one_way;
    double posted;    /* in the replay: when its rank posted it */
    double departure; /* a send, in the replay: when it leaves its rank (on the port, after those before) */
    double start;     /* a send, in the replay: when its bytes start (a rendezvous: once its receive is posted) */
    double delay;     /* a send: how much longer than its gap its bytes take on links it shares, by the last
                       * replay's starts */
    double end;       /* a send, while links are shared: when its bytes are through the slowest of them */
} tl_op;

typedef struct {
    tl_op *ops;
    int *round_end;
    int nops, nrounds, added;
    /* the replay: the round running, from start; its actions reached (round_posted) and the CPU's time
     * then */
    int round, round_posted;
    double start, posted_cpu;
} tl_rank;

typedef struct {
    double arrival, cpu;
} tl_arrival;

typedef struct {
    double finish; /* virtual time: the link's service per flow when this flow is through */
    tl_op *op;
} tl_flow;

struct tdm_timeline {
    int p;
    tl_rank *ranks;
    int *sent_to, *received_from; /* per peer, while a rank is added: its messages so far */
    tdm_torus torus;              /* the ranks' network (torus.ndims 0: none) */
    /* every send made and receive posted in the replay, by (sender, receiver, seq, which); open
     * addressing */
    uint64_t *keys;
    tl_op **posted;
    size_t slots;
    int slot_bits;
    tl_arrival *scratch; /* a round's receives */
    /* the links that sends share: link l carries uses[use_first[l] .. use_first[l + 1]) */
    int nlinks, *use_first;
    tl_op **uses;
    tl_flow *heap; /* one link's flows under way */
};

tdm_timeline *tdm_timeline_new(int p)
{
    tdm_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    tl->p = p;
    tl->ranks = calloc((size_t)p, sizeof *tl->ranks);
    tl->sent_to = calloc((size_t)p, sizeof(int));
    tl->received_from = calloc((size_t)p, sizeof(int));
    if (!tl->ranks || !tl->sent_to || !tl->received_from) {
        tdm_timeline_free(tl);
        return NULL;
    }
    return tl;
}

static void free_replay(tdm_timeline *tl)
{
    free(tl->keys), free(tl->posted), free(tl->scratch), free(tl->use_first), free(tl->uses), free(tl->heap);
    tl->keys = NULL, tl->posted = NULL, tl->scratch = NULL, tl->use_first = NULL, tl->uses = NULL, tl->heap = NULL;
}

void tdm_timeline_free(tdm_timeline *tl)
{
    if (!tl)
        return;
    for (int r = 0; tl->ranks && r < tl->p; r++)
        free(tl->ranks[r].ops), free(tl->ranks[r].round_end);
    free(tl->ranks);
    free(tl->sent_to);
    free(tl->received_from);
    free_replay(tl);
    free(tl);
}

/* Without a torus, the link a send takes, 2 * dimension + 1 if toward lower coordinates, dimensions as
 * the schedule's (the torus's longer than 1, row-major): the one it names, else the port. A dimension
 * of two ranks has one link: either way the neighbour is the same rank. */
static int link_of(const tdm_schedule *s, const tdm_action *a)
{
    if (a->link < 0 || a->link >= PORT)
        return PORT;
    int dim = a->link / 2;
    return dim < s->torus_ndims && s->torus_dims[dim] == 2 ? a->link & ~1 : a->link;
}

int tdm_timeline_add(tdm_timeline *tl, const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p,
                     const tdm_cpu_costs *c, const tdm_torus *t)
{
    tl_rank *k = &tl->ranks[s->rank];
    k->ops = malloc(sizeof *k->ops * (size_t)(s->nactions ? s->nactions : 1));
    k->round_end = malloc(sizeof(int) * (size_t)(s->nrounds ? s->nrounds : 1));
    if (!k->ops || !k->round_end)
        return MPI_ERR_NO_MEM;
    if (t && tdm_torus_ranks(t) != tl->p)
        return MPI_ERR_ARG;
    if (t)
        tl->torus = *t;
    for (int round = 0; round < s->nrounds; round++) {
        int first = tdm_sched_round_begin(s, round), end = tdm_sched_round_end(s, round);
        for (int i = first; i < end; i++) {
            const tdm_action *a = &s->actions[i];
            int size = 0;
            if (elem_bytes <= 0 && (a->kind == TDM_ACT_SEND || a->kind == TDM_ACT_RECV))
                MPI_Type_size(a->type, &size);
            tdm_action_cost cost;
            tdm_action_cost_of(s, i, elem_bytes, p, c, t, &cost);
            tl_op *op = &k->ops[i];
            *op = (tl_op){.peer = a->peer, .link = t ? ROUTED : link_of(s, a), .cpu = cost.cpu,
                          .gap = cost.gap, .one_way = cost.one_way,
                          .rendezvous = (elem_bytes > 0 ? elem_bytes : size) * (double)a->count > c->eager_limit};
            switch (a->kind) {
            case TDM_ACT_SEND: op->kind = OP_SEND, op->seq = tl->sent_to[a->peer]++; break;
            case TDM_ACT_RECV: op->kind = OP_RECV, op->seq = tl->received_from[a->peer]++; break;
            default: op->kind = OP_LOCAL; break;
            }
        }
        k->round_end[round] = end;
    }
    for (int i = 0; i < s->nactions; i++) /* the counters back to 0 for the next rank */
        if (s->actions[i].kind == TDM_ACT_SEND || s->actions[i].kind == TDM_ACT_RECV)
            tl->sent_to[s->actions[i].peer] = tl->received_from[s->actions[i].peer] = 0;
    k->nops = s->nactions, k->nrounds = s->nrounds, k->added = 1;
    return MPI_SUCCESS;
}

enum { SEND_SIDE, RECEIVE_SIDE };

/* The key of the message seq from sender to receiver, its send's or its receive's: never 0, the empty
 * slot's. */
static uint64_t key_of(const tdm_timeline *tl, int sender, int receiver, int seq, int side)
{
    uint64_t pair = (uint64_t)sender * (uint64_t)tl->p + (uint64_t)receiver;
    return ((pair << 24 | (uint64_t)seq) << 1 | (uint64_t)side) + 1;
}

static size_t slot_of(const tdm_timeline *tl, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - tl->slot_bits)); /* the product's high bits */
    while (tl->keys[i] && tl->keys[i] != key)
        i = (i + 1) & (tl->slots - 1);
    return i;
}

/* Records op, rank r's send or receive, as reached in the replay. */
static void record(tdm_timeline *tl, int r, tl_op *op)
{
    uint64_t key = op->kind == OP_SEND ? key_of(tl, r, op->peer, op->seq, SEND_SIDE)
                                       : key_of(tl, op->peer, r, op->seq, RECEIVE_SIDE);
    size_t slot = slot_of(tl, key);
    tl->keys[slot] = key, tl->posted[slot] = op;
}

/* The other side of op, rank r's send or receive, if its peer has reached it. */
static tl_op *matching(tdm_timeline *tl, int r, const tl_op *op)
{
    uint64_t key = op->kind == OP_SEND ? key_of(tl, r, op->peer, op->seq, RECEIVE_SIDE)
                                       : key_of(tl, op->peer, r, op->seq, SEND_SIDE);
    size_t slot = slot_of(tl, key);
    return tl->keys[slot] ? tl->posted[slot] : NULL;
}

/* Rank r's round from its start: its actions in order, a send or a reduction or copy taking the CPU
 * when reached, a receive posted when reached. On the port a send leaves once the sends before it have
 * sent their bytes; on links, at once (sharing them is the replays' concern). */
static void post_round(tdm_timeline *tl, int r)
{
    tl_rank *k = &tl->ranks[r];
    int first = k->round ? k->round_end[k->round - 1] : 0, end = k->round_end[k->round];
    double cpu = k->start, port_free = k->start;
    for (int i = first; i < end; i++) {
        tl_op *op = &k->ops[i];
        if (op->kind == OP_LOCAL)
            cpu += op->cpu;
        if (op->kind == OP_SEND) {
            cpu += op->cpu;
            op->departure = cpu;
            if (op->link == PORT) {
                op->departure = cpu > port_free ? cpu : port_free; /* the port may still be busy */
                port_free = op->departure + op->gap;
            }
        }
        if (op->kind != OP_LOCAL)
            op->posted = cpu, record(tl, r, op);
    }
    k->posted_cpu = cpu, k->round_posted = 1;
}

/* When a send's bytes start: a rendezvous's once its receive is posted too. */
static double start_of(const tl_op *send, const tl_op *receive)
{
    return send->rendezvous && receive->posted > send->departure ? receive->posted : send->departure;
}

static int by_arrival(const void *a, const void *b)
{
    double x = ((const tl_arrival *)a)->arrival, y = ((const tl_arrival *)b)->arrival;
    return (x > y) - (x < y);
}

/* Rank r's round ends, if every message it receives has been sent and every rendezvous it sends has its
 * receive posted: its sends once their bytes have left, its receives in the order they arrive, each
 * taking o_r of the CPU (a lone message's one-way time includes it), after its local work. Returns 0 if
 * a peer has not reached its side of a message yet. */
static int finish_round(tdm_timeline *tl, int r)
{
    tl_rank *k = &tl->ranks[r];
    int first = k->round ? k->round_end[k->round - 1] : 0, end = k->round_end[k->round], n = 0;
    double cpu = k->posted_cpu, sent = k->start;
    for (int i = first; i < end; i++) {
        tl_op *op = &k->ops[i], *other = op->kind == OP_LOCAL ? NULL : matching(tl, r, op);
        if (op->kind == OP_SEND) { /* its bytes take its gap, and what sharing adds, once they start */
            if (op->rendezvous && !other)
                return 0;
            double left = (other ? start_of(op, other) : op->departure) + op->gap + op->delay;
            sent = left > sent ? left : sent;
        }
        if (op->kind != OP_RECV)
            continue;
        if (!other)
            return 0;
        other->start = start_of(other, op);
        /* one_way: from the send's start, its o_s included */
        tl->scratch[n++] = (tl_arrival){other->start + other->one_way - other->cpu + other->delay, op->cpu};
    }
    qsort(tl->scratch, (size_t)n, sizeof *tl->scratch, by_arrival);
    for (int i = 0; i < n; i++)
        cpu = cpu + tl->scratch[i].cpu > tl->scratch[i].arrival ? cpu + tl->scratch[i].cpu : tl->scratch[i].arrival;
    k->start = cpu > sent ? cpu : sent;
    k->round++, k->round_posted = 0;
    return 1;
}

/* Every rank's rounds from time 0, by the sends' delays: passes over the ranks, each taking every rank
 * as far as its messages allow; one that moves none (reaches no round, ends none) means a message whose
 * other side is never reached. */
static int replay(tdm_timeline *tl, double *latency)
{
    memset(tl->keys, 0, sizeof *tl->keys * tl->slots);
    for (int r = 0; r < tl->p; r++)
        tl->ranks[r].round = tl->ranks[r].round_posted = 0, tl->ranks[r].start = 0;
    int running = tl->p;
    *latency = 0;
    while (running > 0) {
        int moved = 0;
        running = 0;
        for (int r = 0; r < tl->p; r++) {
            tl_rank *k = &tl->ranks[r];
            while (k->round < k->nrounds) {
                if (!k->round_posted)
                    post_round(tl, r), moved = 1;
                if (!finish_round(tl, r))
                    break;
                moved = 1;
            }
            if (k->round < k->nrounds)
                running++;
            else if (k->start > *latency)
                *latency = k->start;
        }
        if (running > 0 && !moved)
            return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

/* The links rank r's send op crosses into links (room for max): on the torus its route; without, the
 * link it names, but none on the port (its queue is post_round's). How many it crosses. */
static int links_of(const tdm_timeline *tl, int r, const tl_op *op, int *links, int max)
{
    if (op->gap <= 0) /* its bytes take no link's time */
        return 0;
    if (tl->torus.ndims)
        return tdm_torus_route(&tl->torus, r, op->peer, links, max);
    if (op->link == PORT)
        return 0;
    if (max > 0)
        links[0] = r * PORT + op->link;
    return 1;
}

/* Which sends cross which link (use_first, uses), and room for one link's flows. */
static int index_links(tdm_timeline *tl)
{
    int longest = 1, busiest = 0; /* longest: a route's links at most, half of each ring */
    for (int d = 0; d < tl->torus.ndims; d++)
        longest += tl->torus.dims[d] / 2;
    int *route = malloc(sizeof *route * (size_t)longest);
    tl->nlinks = tl->torus.ndims ? tdm_torus_links(&tl->torus) : tl->p * PORT;
    tl->use_first = calloc((size_t)tl->nlinks + 1, sizeof *tl->use_first);
    if (!route || !tl->use_first) {
        free(route);
        return MPI_ERR_NO_MEM;
    }
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (int r = 0; r < tl->p; r++)
            for (int i = 0; i < tl->ranks[r].nops; i++) {
                tl_op *op = &tl->ranks[r].ops[i];
                op->delay = 0;
                if (op->kind != OP_SEND)
                    continue;
                int n = links_of(tl, r, op, route, longest);
                for (int h = 0; h < n; h++) {
                    if (pass == 0)
                        tl->use_first[route[h] + 1]++;
                    else
                        tl->uses[tl->use_first[route[h]]++] = op;
                }
            }
        if (pass == 0) {
            for (int l = 0; l < tl->nlinks; l++) {
                int n = tl->use_first[l + 1];
                busiest = n > busiest ? n : busiest;
                tl->use_first[l + 1] += tl->use_first[l];
            }
            tl->uses = malloc(sizeof *tl->uses * (size_t)(tl->use_first[tl->nlinks] + 1));
            tl->heap = malloc(sizeof *tl->heap * (size_t)(busiest + 1));
            if (!tl->uses || !tl->heap) {
                free(route);
                return MPI_ERR_NO_MEM;
            }
        }
    }
    free(route);
    /* filling moved each link's first use to the next link's: back by one */
    memmove(tl->use_first + 1, tl->use_first, sizeof *tl->use_first * (size_t)tl->nlinks);
    tl->use_first[0] = 0;
    return MPI_SUCCESS;
}

static int by_start(const void *a, const void *b)
{
    double x = (*(tl_op *const *)a)->start, y = (*(tl_op *const *)b)->start;
    return (x > y) - (x < y);
}

/* A binary heap of a link's flows under way, the first through on top. */
static void heap_push(tl_flow *h, int *n, tl_flow f)
{
    int i = (*n)++;
    for (; i > 0 && h[(i - 1) / 2].finish > f.finish; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = f;
}

static tl_flow heap_pop(tl_flow *h, int *n)
{
    tl_flow top = h[0], last = h[--*n];
    int i = 0;
    for (int child; (child = 2 * i + 1) < *n; i = child) {
        if (child + 1 < *n && h[child + 1].finish < h[child].finish)
            child++;
        if (h[child].finish >= last.finish)
            break;
        h[i] = h[child];
    }
    h[i] = last;
    return top;
}

/* The sends over link l, each from its start with its gap's bytes, share it evenly (processor sharing,
 * as a network's flows do: n flows at once each move at 1/n of its speed); each send's end becomes the
 * latest of its own and when it is through here. Virtual time counts each flow's service so far. */
static void share_link(tdm_timeline *tl, int l)
{
    tl_op **flows = tl->uses + tl->use_first[l];
    int n = tl->use_first[l + 1] - tl->use_first[l], under_way = 0, next = 0;
    qsort(flows, (size_t)n, sizeof *flows, by_start);
    double now = 0, served = 0; /* served: the service each flow under way has had since virtual time 0 */
    while (next < n || under_way) {
        double through = under_way ? now + (tl->heap[0].finish - served) * under_way : 0;
        if (next < n && (!under_way || flows[next]->start <= through)) {
            if (under_way)
                served += (flows[next]->start - now) / under_way;
            now = flows[next]->start;
            heap_push(tl->heap, &under_way, (tl_flow){served + flows[next]->gap, flows[next]});
            next++;
        } else {
            tl_flow f = heap_pop(tl->heap, &under_way);
            now = through, served = f.finish;
            if (now > f.op->end)
                f.op->end = now;
        }
    }
}

/* Every link shared by the last replay's starts; each send's delay moved by damping toward what that
 * gives. The largest change of one. */
static double share_links(tdm_timeline *tl, double damping)
{
    for (int r = 0; r < tl->p; r++)
        for (int i = 0; i < tl->ranks[r].nops; i++)
            tl->ranks[r].ops[i].end = 0;
    for (int l = 0; l < tl->nlinks; l++)
        share_link(tl, l);
    double change = 0;
    for (int r = 0; r < tl->p; r++)
        for (int i = 0; i < tl->ranks[r].nops; i++) {
            tl_op *op = &tl->ranks[r].ops[i];
            if (op->kind != OP_SEND || op->end <= 0)
                continue;
            double delay = op->end - op->start - op->gap;
            delay = delay > 0 ? delay : 0;
            delay = op->delay + damping * (delay - op->delay);
            change = fabs(delay - op->delay) > change ? fabs(delay - op->delay) : change;
            op->delay = delay;
        }
    return change;
}

int tdm_timeline_latency(tdm_timeline *tl, double *latency)
{
    size_t messages = 0; /* sends and receives */
    int busiest_round = 1;
    for (int r = 0; r < tl->p; r++) {
        tl_rank *k = &tl->ranks[r];
        if (!k->added)
            return MPI_ERR_INTERN;
        for (int i = 0, round = 0; round < k->nrounds; round++) {
            int receives = 0;
            for (; i < k->round_end[round]; i++)
                messages += k->ops[i].kind != OP_LOCAL, receives += k->ops[i].kind == OP_RECV;
            busiest_round = receives > busiest_round ? receives : busiest_round;
        }
    }
    free_replay(tl);
    for (tl->slots = 16, tl->slot_bits = 4; tl->slots < 2 * messages; tl->slots *= 2, tl->slot_bits++)
        ;
    tl->keys = malloc(sizeof *tl->keys * tl->slots);
    tl->posted = malloc(sizeof *tl->posted * tl->slots);
    tl->scratch = malloc(sizeof *tl->scratch * (size_t)busiest_round);
    if (!tl->keys || !tl->posted || !tl->scratch)
        return MPI_ERR_NO_MEM;
    int rc = index_links(tl);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Replays until the links' sharing settles: the delays, or the latency they give, stop moving. */
    rc = replay(tl, latency);
    for (int pass = 1; rc == MPI_SUCCESS && pass < MAX_PASSES && tl->use_first[tl->nlinks] > 0; pass++) {
        double before = *latency;
        if (share_links(tl, pass == 1 ? 1 : DAMPING) <= 1e-4 * before)
            break;
        rc = replay(tl, latency);
        if (fabs(*latency - before) <= 1e-3 * before)
            break;
    }
    return rc;
}
