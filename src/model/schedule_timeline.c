#include "schedule_timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { OP_SEND, OP_RECV, OP_LOCAL, OP_LOCAL_AFTER_RECEIVES };
#define PORT (2 * TDM_TORUS_MAX_DIMS) /* sends that name no torus link share one port */

typedef struct {
    int kind, peer, link, seq; /* seq: the message's number among those from its sender to its receiver */
    int rendezvous;            /* a message above the eager limit: it starts once its receive is posted */
    double cpu, gap, one_way;
    double posted;    /* in the replay: when its rank posted it */
    double departure; /* a send, in the replay: when it leaves (on its link, its bytes' time before it arrives) */
} tl_op;

typedef struct {
    tl_op *ops;
    int *round_end;
    int nops, nrounds, added;
    /* the replay: the round running, from start; its sends made (posted), the CPU's time then and when
     * its sends have left */
    int round, posted;
    double start, posted_cpu, sends_done;
} tl_rank;

typedef struct {
    double arrival, cpu;
} tl_arrival;

struct tdm_timeline {
    int p;
    tl_rank *ranks;
    int *sent_to, *received_from; /* per peer, while a rank is added: its messages so far */
    /* every send made: its arrival at its peer, by (sender, receiver, seq); open addressing */
    uint64_t *keys;
    double *departure, *flight; /* a send's: when it left its rank, and its time from there to arrival */
    size_t slots;
    tl_arrival *scratch; /* a round's receives */
    tl_op **sharing;     /* a round's sends on one link */
    int scratch_cap;
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

void tdm_timeline_free(tdm_timeline *tl)
{
    if (!tl)
        return;
    for (int r = 0; tl->ranks && r < tl->p; r++)
        free(tl->ranks[r].ops), free(tl->ranks[r].round_end);
    free(tl->ranks);
    free(tl->sent_to);
    free(tl->received_from);
    free(tl->keys);
    free(tl->departure);
    free(tl->flight);
    free(tl->scratch);
    free(tl->sharing);
    free(tl);
}

/* The link a send takes, 2 * dimension + 1 if toward lower coordinates, dimensions as the schedule's
 * (the torus's longer than 1, row-major): the one it names; else, on a torus, the first hop of
 * dimension-ordered routing (the fastest-varying dimension first, the shorter way, as SimGrid's torus
 * routes); else the port, which all such sends share. A dimension of two ranks has one link: either way
 * the neighbour is the same rank. */
static int link_of(const tdm_schedule *s, const tdm_action *a, const tdm_torus *t)
{
    if (a->link >= 0 && a->link < PORT) {
        int dim = a->link / 2;
        return dim < s->torus_ndims && s->torus_dims[dim] == 2 ? a->link & ~1 : a->link;
    }
    if (!t || a->kind != TDM_ACT_SEND)
        return PORT;
    int from = s->rank, to = a->peer, dim = 0, hop = -1;
    for (int d = 0; d < t->ndims; d++)
        dim += t->dims[d] > 1;
    for (int d = t->ndims - 1; d >= 0; d--) {
        int len = t->dims[d], x = from % len, y = to % len;
        from /= len, to /= len;
        if (len == 1)
            continue;
        dim--;
        if (x != y && hop < 0) {
            int up = (y - x + len) % len; /* steps toward higher coordinates */
            hop = len == 2 ? 2 * dim : 2 * dim + (up > len - up);
        }
    }
    return hop >= 0 && hop < PORT ? hop : PORT;
}

int tdm_timeline_add(tdm_timeline *tl, const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p,
                     const tdm_cpu_costs *c, const tdm_torus *t)
{
    tl_rank *k = &tl->ranks[s->rank];
    k->ops = malloc(sizeof *k->ops * (size_t)(s->nactions ? s->nactions : 1));
    k->round_end = malloc(sizeof(int) * (size_t)(s->nrounds ? s->nrounds : 1));
    if (!k->ops || !k->round_end)
        return MPI_ERR_NO_MEM;
    for (int round = 0; round < s->nrounds; round++) {
        int first = tdm_sched_round_begin(s, round), end = tdm_sched_round_end(s, round);
        for (int i = first; i < end; i++) {
            const tdm_action *a = &s->actions[i];
            int size = 0;
            if (elem_bytes <= 0 && (a->kind == TDM_ACT_SEND || a->kind == TDM_ACT_RECV))
                MPI_Type_size(a->type, &size);
            tdm_action_cost cost;
            tdm_action_cost_of(s, first, end, i, elem_bytes, p, c, t, &cost);
            tl_op *op = &k->ops[i];
            *op = (tl_op){.peer = a->peer, .link = link_of(s, a, t), .cpu = cost.cpu,
                          .gap = cost.gap, .one_way = cost.one_way,
                          .rendezvous = (elem_bytes > 0 ? elem_bytes : size) * (double)a->count > c->eager_limit};
            switch (a->kind) {
            case TDM_ACT_SEND: op->kind = OP_SEND, op->seq = tl->sent_to[a->peer]++; break;
            case TDM_ACT_RECV: op->kind = OP_RECV, op->seq = tl->received_from[a->peer]++; break;
            default: op->kind = cost.after_receives ? OP_LOCAL_AFTER_RECEIVES : OP_LOCAL; break;
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

/* The key of the message seq from sender to receiver: never 0, the empty slot's. */
static uint64_t key_of(const tdm_timeline *tl, int sender, int receiver, int seq)
{
    return (((uint64_t)sender * (uint64_t)tl->p + (uint64_t)receiver) << 24 | (uint64_t)seq) + 1;
}

static size_t slot_of(const tdm_timeline *tl, uint64_t key)
{
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull) & (tl->slots - 1);
    while (tl->keys[i] && tl->keys[i] != key)
        i = (i + 1) & (tl->slots - 1);
    return i;
}

static int by_gap(const void *a, const void *b)
{
    double x = (*(tl_op *const *)a)->gap, y = (*(tl_op *const *)b)->gap;
    return (x > y) - (x < y);
}

/* Rank r's sends of its round, made one after the other from its start, and its local work that does
 * not wait for the round's receives. A send holds its link for its gap's bytes part: on the port, one
 * after the other; a torus link's sends of the round share it evenly from the first one's start, as a
 * network's flows do (n equal messages all end at n gaps), so each ends its gap before its share ends. */
static void post_round(tdm_timeline *tl, int r)
{
    tl_rank *k = &tl->ranks[r];
    int first = k->round ? k->round_end[k->round - 1] : 0, end = k->round_end[k->round];
    double cpu = k->start, done = k->start, link_free[PORT + 1];
    for (int l = 0; l <= PORT; l++)
        link_free[l] = k->start;
    for (int i = first; i < end; i++) {
        tl_op *op = &k->ops[i];
        if (op->kind == OP_LOCAL)
            cpu += op->cpu;
        if (op->kind == OP_RECV)
            op->posted = cpu;
        if (op->kind != OP_SEND)
            continue;
        cpu += op->cpu;
        op->posted = cpu;
        if (op->link == PORT) {
            double out = cpu > link_free[PORT] ? cpu : link_free[PORT]; /* the port may still be busy */
            link_free[PORT] = out + op->gap;
            op->departure = out;
        }
    }
    for (int l = 0; l < PORT; l++) { /* the torus links' sends, sharing */
        int n = 0;
        for (int i = first; i < end; i++)
            if (k->ops[i].kind == OP_SEND && k->ops[i].link == l)
                tl->sharing[n++] = &k->ops[i];
        if (!n)
            continue;
        double start = tl->sharing[0]->posted, before = 0;
        qsort(tl->sharing, (size_t)n, sizeof *tl->sharing, by_gap);
        for (int j = 0; j < n; j++) { /* the j-th shortest ends when it and the longer ones sent its bytes */
            double ends = start + before + (n - j) * tl->sharing[j]->gap;
            before += tl->sharing[j]->gap;
            double leaves = ends - tl->sharing[j]->gap;
            tl->sharing[j]->departure = leaves > tl->sharing[j]->posted ? leaves : tl->sharing[j]->posted;
        }
        link_free[l] = start + before;
    }
    for (int i = first; i < end; i++) {
        tl_op *op = &k->ops[i];
        if (op->kind != OP_SEND)
            continue;
        double left = op->departure + op->gap;
        done = left > done ? left : done;
        size_t slot = slot_of(tl, key_of(tl, r, op->peer, op->seq));
        tl->keys[slot] = key_of(tl, r, op->peer, op->seq);
        tl->departure[slot] = op->departure, tl->flight[slot] = op->one_way - op->cpu; /* one_way: from its start */
    }
    k->posted_cpu = cpu, k->sends_done = done, k->posted = 1;
}

static int by_arrival(const void *a, const void *b)
{
    double x = ((const tl_arrival *)a)->arrival, y = ((const tl_arrival *)b)->arrival;
    return (x > y) - (x < y);
}

/* Rank r's round ends, if every message it receives has been sent: the receives complete in the order
 * they arrive, each taking o_r of the CPU (a lone message's one-way time includes it), then the local
 * work that reads them. Returns 0 if a sender has not reached its send yet. */
static int finish_round(tdm_timeline *tl, int r)
{
    tl_rank *k = &tl->ranks[r];
    int first = k->round ? k->round_end[k->round - 1] : 0, end = k->round_end[k->round], n = 0;
    double cpu = k->posted_cpu;
    for (int i = first; i < end; i++) {
        const tl_op *op = &k->ops[i];
        if (op->kind != OP_RECV)
            continue;
        size_t slot = slot_of(tl, key_of(tl, op->peer, r, op->seq));
        if (!tl->keys[slot])
            return 0;
        double start = tl->departure[slot];
        if (op->rendezvous && op->posted > start)
            start = op->posted;
        tl->scratch[n++] = (tl_arrival){start + tl->flight[slot], op->cpu};
    }
    qsort(tl->scratch, (size_t)n, sizeof *tl->scratch, by_arrival);
    for (int i = 0; i < n; i++)
        cpu = cpu + tl->scratch[i].cpu > tl->scratch[i].arrival ? cpu + tl->scratch[i].cpu : tl->scratch[i].arrival;
    for (int i = first; i < end; i++)
        if (k->ops[i].kind == OP_LOCAL_AFTER_RECEIVES)
            cpu += k->ops[i].cpu;
    k->start = cpu > k->sends_done ? cpu : k->sends_done;
    k->round++, k->posted = 0;
    return 1;
}

int tdm_timeline_latency(tdm_timeline *tl, double *latency)
{
    size_t sends = 0;
    int busiest_round = 1, busiest_sends = 1;
    for (int r = 0; r < tl->p; r++) {
        tl_rank *k = &tl->ranks[r];
        if (!k->added)
            return MPI_ERR_INTERN;
        k->round = k->posted = 0, k->start = 0;
        for (int i = 0, round = 0; round < k->nrounds; round++) {
            int receives = 0, round_sends = 0;
            for (; i < k->round_end[round]; i++)
                round_sends += k->ops[i].kind == OP_SEND, receives += k->ops[i].kind == OP_RECV;
            sends += (size_t)round_sends;
            busiest_round = receives > busiest_round ? receives : busiest_round;
            busiest_sends = round_sends > busiest_sends ? round_sends : busiest_sends;
        }
    }
    for (tl->slots = 16; tl->slots < 2 * sends; tl->slots *= 2)
        ;
    free(tl->keys), free(tl->departure), free(tl->flight), free(tl->scratch), free(tl->sharing);
    tl->keys = calloc(tl->slots, sizeof *tl->keys);
    tl->departure = malloc(sizeof *tl->departure * tl->slots);
    tl->flight = malloc(sizeof *tl->flight * tl->slots);
    tl->scratch = malloc(sizeof *tl->scratch * (size_t)busiest_round);
    tl->sharing = malloc(sizeof *tl->sharing * (size_t)busiest_sends);
    if (!tl->keys || !tl->departure || !tl->flight || !tl->scratch || !tl->sharing)
        return MPI_ERR_NO_MEM;
    /* Passes over the ranks, each taking every rank as far as its messages allow; one that moves none
     * means a receive that no send matches. */
    int running = tl->p;
    *latency = 0;
    while (running > 0) {
        int moved = 0;
        running = 0;
        for (int r = 0; r < tl->p; r++) {
            tl_rank *k = &tl->ranks[r];
            while (k->round < k->nrounds) {
                if (!k->posted)
                    post_round(tl, r);
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
