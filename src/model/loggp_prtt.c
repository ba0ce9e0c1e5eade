#include "loggp_prtt.h"

#include "../base/clock_cost.h"
#include "../base/smpi_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CLIENT = 0, SERVER = 1, TAG = 7 };

int tdm_loggp_default_sizes(double *sizes)
{
    int n = 0;
    for (double s = 1; s <= 4 << 20; s *= 4)
        sizes[n++] = s;
    return n;
}

/* Busy for `seconds` (in simulation, charged as computation). Returns how long it kept the CPU: it reads
 * the clock until `seconds` passed, which overshoots by up to a read, and the halves of its first and
 * last reads outside what they measure add one read's cost, `clock`. */
static double compute_for(double seconds, double clock)
{
    if (TDM_SIMULATED) {
        tdm_smpi_execute(seconds);
        return seconds;
    }
    double start = MPI_Wtime(), now;
    do
        now = MPI_Wtime();
    while (now < start + seconds);
    return now - start + clock;
}

/* PRTT(n, d, s) as rank 0 times it; rank 1 serves (0 there). The sends are MPI_Isend, completed
 * together after the last (as a schedule's are): a message's transfer may overlap the computation
 * after it, what the CPU must do for it (posting it, a shared-memory copy) may not. The computations'
 * overshoot of d is taken out, and the clock's own cost (`clock`, one read's per timed interval). */
static double prtt(MPI_Comm comm, int rank, char *buf, char *reply, int bytes, int n, double d, double clock)
{
    if (rank == CLIENT) {
        MPI_Request sends[TDM_LOGGP_MAX_TRAIN];
        double overshoot = 0;
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            MPI_Isend(buf, bytes, MPI_BYTE, SERVER, TAG, comm, &sends[i]);
            if (i < n - 1 && d > 0)
                overshoot += compute_for(d, clock) - d;
        }
        for (int i = 0; i < n; i++)
            MPI_Wait(&sends[i], MPI_STATUS_IGNORE);
        MPI_Recv(reply, bytes, MPI_BYTE, SERVER, TAG, comm, MPI_STATUS_IGNORE);
        return MPI_Wtime() - t0 - clock - overshoot;
    }
    if (rank == SERVER) { /* (its reply is sent as the client's messages are) */
        MPI_Request r;
        for (int i = 0; i < n; i++)
            MPI_Recv(buf, bytes, MPI_BYTE, CLIENT, TAG, comm, MPI_STATUS_IGNORE);
        MPI_Isend(reply, bytes, MPI_BYTE, CLIENT, TAG, comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    return 0;
}

/* Rank 1's time in MPI for a message of rank 0's that had `wait` seconds of rank 1's computation to
 * arrive: in MPI_Irecv before it and the MPI_Test calls that complete it after it (as Tandem's engine
 * completes its receives: Open MPI's MPI_Wait costs a small message more), less the clock's cost in
 * each (0 on rank 0). */
static double receive_overhead(MPI_Comm comm, int rank, char *buf, int bytes, double wait, double clock)
{
    double t = 0;
    if (rank == CLIENT) {
        MPI_Send(buf, bytes, MPI_BYTE, SERVER, TAG, comm);
        MPI_Recv(NULL, 0, MPI_BYTE, SERVER, TAG, comm, MPI_STATUS_IGNORE);
    } else if (rank == SERVER) {
        MPI_Request r;
        double t0 = MPI_Wtime();
        MPI_Irecv(buf, bytes, MPI_BYTE, CLIENT, TAG, comm, &r);
        t = MPI_Wtime() - t0 - clock;
        compute_for(wait, clock);
        t0 = MPI_Wtime();
        for (int done = 0; !done;)
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        t += MPI_Wtime() - t0 - clock;
        MPI_Send(NULL, 0, MPI_BYTE, CLIENT, TAG, comm);
    }
    return t;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median and the interquartile range of v[0 .. n-1] (sorted here). */
static tdm_measured summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    tdm_measured m = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[(3 * (n - 1)) / 4] - v[(n - 1) / 4]};
    return m;
}

/* Repetitions of a measurement taken on `on` (one untimed first), summarized there and sent to all. */
#define REPEAT(out, reps, on, expr)                                                                                    \
    do {                                                                                                               \
        for (int r_ = -1; r_ < (reps); r_++) {                                                                         \
            double t_ = (expr);                                                                                        \
            if (r_ >= 0)                                                                                               \
                times[r_] = t_;                                                                                        \
        }                                                                                                              \
        tdm_measured m_ = summarize(times, (reps));                                                                    \
        MPI_Bcast(&m_, 2, MPI_DOUBLE, (on), comm);                                                                     \
        (out) = m_;                                                                                                    \
    } while (0)

static void measure_size(MPI_Comm comm, int rank, int reps, int n, char *buf, char *reply, int bytes, double *times,
                         double clock, tdm_loggp_size *at)
{
    at->bytes = bytes;
    REPEAT(at->rtt, reps, CLIENT, prtt(comm, rank, buf, reply, bytes, 1, 0, clock));
    tdm_measured train;
    REPEAT(train, reps, CLIENT, prtt(comm, rank, buf, reply, bytes, n, 0, clock));
    at->gap.median = (train.median - at->rtt.median) / (n - 1);
    at->gap.spread = train.spread / (n - 1);
    /* spaced wider than a message's gap, the network idles between them: what remains is the sender's */
    double d = 2 * (at->gap.median > at->rtt.median ? at->gap.median : at->rtt.median);
    tdm_measured spaced;
    REPEAT(spaced, reps, CLIENT, prtt(comm, rank, buf, reply, bytes, n, d, clock));
    at->o_s.median = (spaced.median - at->rtt.median) / (n - 1) - d;
    at->o_s.spread = spaced.spread / (n - 1);
    REPEAT(at->o_r, reps, SERVER, receive_overhead(comm, rank, buf, bytes, 2 * at->rtt.median, clock));
    at->o_s.median = fmax(0, at->o_s.median); /* below the noise */
    at->o_r.median = fmax(0, at->o_r.median);
}

/* G: the least-squares slope of gap(s) over the sizes from 256 KiB (the two largest if fewer), past the
 * switch to rendezvous of the MPIs (from a few to 64 KiB), which changes the intercept. */
static double gap_slope(const tdm_loggp_params *p)
{
    int first = p->nsizes - 2;
    while (first > 0 && p->size[first - 1].bytes >= 262144)
        first--;
    if (first < 0)
        return 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = p->nsizes - first;
    for (int i = first; i < p->nsizes; i++) {
        double x = p->size[i].bytes, y = p->size[i].gap.median;
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double den = k * sxx - sx * sx;
    return den > 0 ? (k * sxy - sx * sy) / den : 0;
}

int tdm_loggp_prtt_measure(MPI_Comm comm, int reps, int train, const double *sizes, int n, tdm_loggp_params *p)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (ranks < 2 || reps < 1 || train < 2 || train > TDM_LOGGP_MAX_TRAIN || n < 2 || n > TDM_LOGGP_MAX_SIZES || sizes[0] != 1)
        return MPI_ERR_ARG;
    for (int i = 1; i < n; i++)
        if (!(sizes[i] > sizes[i - 1]) || sizes[i] > (1 << 30))
            return MPI_ERR_ARG;
    size_t largest = (size_t)sizes[n - 1];
    char *buf = malloc(largest), *reply = malloc(largest);
    double *times = malloc(sizeof(double) * (size_t)reps);
    if (!buf || !reply || !times) {
        free(buf), free(reply), free(times);
        return MPI_ERR_NO_MEM;
    }
    memset(buf, 1, largest);
    memset(reply, 2, largest);
    memset(p, 0, sizeof *p);
    p->nsizes = n;
    double clock = tdm_wtime_cost(); /* rank 0's and rank 1's own, as each times */
    /* once untimed: the first messages between two ranks set up their connection, and the first size's
     * round trip came out 70% above the next one's */
    measure_size(comm, rank, reps, train, buf, reply, (int)sizes[0], times, clock, &p->size[0]);
    for (int i = 0; i < n; i++)
        measure_size(comm, rank, reps, train, buf, reply, (int)sizes[i], times, clock, &p->size[i]);
    const tdm_loggp_size *one = &p->size[0];
    p->o_s = one->o_s.median;
    p->o_r = one->o_r.median;
    p->g = one->gap.median;
    p->L = fmax(0, one->rtt.median / 2 - p->o_s - p->o_r);
    p->G = fmax(0, gap_slope(p));
    free(buf), free(reply), free(times);
    return MPI_SUCCESS;
}

void tdm_loggp_from_prtt(const tdm_loggp_params *p, tdm_loggp *m)
{
    int near = 0; /* the size nearest 256 KiB (by ratio) */
    for (int i = 1; i < p->nsizes; i++)
        if (fabs(log(p->size[i].bytes / 262144)) < fabs(log(p->size[near].bytes / 262144)))
            near = i;
    double half_byte = p->size[0].rtt.median / 2;
    m->beta = p->G;
    m->alpha = fmax(half_byte, p->size[near].rtt.median / 2 - p->size[near].bytes * p->G);
    m->latency = fmin(p->L, m->alpha); /* what messages started at once wait out together */
}

int tdm_loggp_prtt_write(FILE *out, const tdm_loggp_params *p)
{
    int ok = fprintf(out, "L %.6g\no_s %.6g\no_r %.6g\ng %.6g\nG %.6g\n", p->L, p->o_s, p->o_r, p->g, p->G) > 0;
    ok &= fprintf(out, "# %10s %12s %12s %12s %12s %12s %12s %12s %12s\n", "bytes", "prtt(1,0,s)", "spread", "gap(s)",
                  "spread", "o_s(s)", "spread", "o_r(s)", "spread") > 0;
    for (int i = 0; i < p->nsizes && ok; i++) {
        const tdm_loggp_size *s = &p->size[i];
        ok = fprintf(out, "# %10.0f %12.6g %12.3g %12.6g %12.3g %12.6g %12.3g %12.6g %12.3g\n", s->bytes, s->rtt.median,
                     s->rtt.spread, s->gap.median, s->gap.spread, s->o_s.median, s->o_s.spread, s->o_r.median,
                     s->o_r.spread) > 0;
    }
    return ok;
}

int tdm_loggp_prtt_read(FILE *in, tdm_loggp_params *p)
{
    static const char *const names[] = {"L", "o_s", "o_r", "g", "G"};
    double *fields[] = {&p->L, &p->o_s, &p->o_r, &p->g, &p->G};
    char line[512], name[16];
    int seen = 0;
    memset(p, 0, sizeof *p);
    while (fgets(line, sizeof line, in)) {
        double v[9];
        if (line[0] == '#') { /* a size's row: bytes, then median and spread of rtt, gap, o_s, o_r */
            if (sscanf(line + 1, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7], &v[8]) == 9 && p->nsizes < TDM_LOGGP_MAX_SIZES) {
                tdm_loggp_size *s = &p->size[p->nsizes++];
                s->bytes = v[0];
                s->rtt = (tdm_measured){v[1], v[2]};
                s->gap = (tdm_measured){v[3], v[4]};
                s->o_s = (tdm_measured){v[5], v[6]};
                s->o_r = (tdm_measured){v[7], v[8]};
            }
            continue;
        }
        if (sscanf(line, "%15s %lf", name, &v[0]) != 2)
            continue;
        for (int k = 0; k < 5; k++)
            if (!strcmp(name, names[k]))
                *fields[k] = v[0], seen |= 1 << k;
    }
    return seen == 31 && p->nsizes > 0;
}

int tdm_loggp_prtt_write_json(FILE *out, const tdm_loggp_params *p, const tdm_loggp *m)
{
    int ok = fprintf(out, "{\"L\": %.6g, \"o_s\": %.6g, \"o_r\": %.6g, \"g\": %.6g, \"G\": %.6g, \"alpha\": %.6g, "
                          "\"beta\": %.6g, \"gamma\": %.6g, \"sizes\": [",
                     p->L, p->o_s, p->o_r, p->g, p->G, m->alpha, m->beta, m->gamma) > 0;
    for (int i = 0; i < p->nsizes && ok; i++) {
        const tdm_loggp_size *s = &p->size[i];
        ok = fprintf(out,
                     "%s{\"bytes\": %.0f, \"prtt\": %.6g, \"prtt_spread\": %.3g, \"gap\": %.6g, \"gap_spread\": %.3g, "
                     "\"o_s\": %.6g, \"o_s_spread\": %.3g, \"o_r\": %.6g, \"o_r_spread\": %.3g}",
                     i ? ", " : "", s->bytes, s->rtt.median, s->rtt.spread, s->gap.median, s->gap.spread,
                     s->o_s.median, s->o_s.spread, s->o_r.median, s->o_r.spread) > 0;
    }
    return ok && fprintf(out, "]}\n") > 0;
}
