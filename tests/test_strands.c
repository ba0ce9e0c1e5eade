/*
 * Strands (schedule.h): one schedule runs several sequences of rounds side by side, and a round may wait
 * for a round of another strand (a gate). On a ring of p ranks:
 *   - strand 0 passes each rank's number to its right neighbour; strand 1, gated on that round,
 *     forwards the number it received one rank further: it must send what strand 0 received, not
 *     what the buffer held before;
 *   - strand 2 exchanges messages of another size with the same neighbours at the same time, in rounds
 *     of its own; odd ranks post it before strand 0, even ranks after: its messages must never match
 *     the other strands' (a tag per strand);
 *   - strand 3 starts after strand 1's last round and copies its result: a gate on a gated strand;
 *   - the same schedule runs again (a cached schedule restarted with a new tag);
 *   - builder mistakes are refused (a gate on a round that does not exist, a strand out of range,
 *     split rounds in a schedule with strands), and the dump names strands and gates.
 */
#include "../src/engine/exec.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

static void expect(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s\n", what);
    }
}

#define WIDE 5 /* strand 2's message length */

typedef struct {
    int mine, from_left, from_two_left, copied;
    int wide_out[WIDE], wide_in[WIDE], wide_again[WIDE];
} buffers;

/* Strand 2 exchanges with both neighbours in two rounds of its own. */
static void wide_strand(tdm_schedule *s, buffers *b, int left, int right)
{
    tdm_sched_strand(s, 2);
    tdm_sched_recv(s, b->wide_in, WIDE, MPI_INT, left);
    tdm_sched_send(s, b->wide_out, WIDE, MPI_INT, right);
    tdm_sched_round(s);
    tdm_sched_recv(s, b->wide_again, WIDE, MPI_INT, right);
    tdm_sched_send(s, b->wide_out, WIDE, MPI_INT, left);
    tdm_sched_round(s);
}

/* Even ranks post strand 0's message before strand 2's; odd ranks the other way round (their strand 0
 * waits for strand 2's first round), so that with one tag for all strands the messages would cross. */
static void build(tdm_schedule *s, buffers *b, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, odd = rank % 2;
    tdm_sched_init(s, "strands", rank, size);
    if (odd) {
        wide_strand(s, b, left, right);
        tdm_sched_strand(s, 0);
        tdm_sched_after(s, 0);
    }
    /* strand 0: one round */
    tdm_sched_recv(s, &b->from_left, 1, MPI_INT, left);
    tdm_sched_send(s, &b->mine, 1, MPI_INT, right);
    tdm_sched_round(s);
    int passed = tdm_sched_rounds(s) - 1;
    if (!odd)
        wide_strand(s, b, left, right);
    /* strand 1: forwards what strand 0 received, once it is there */
    tdm_sched_strand(s, 1);
    tdm_sched_after(s, passed);
    tdm_sched_recv(s, &b->from_two_left, 1, MPI_INT, left);
    tdm_sched_send(s, &b->from_left, 1, MPI_INT, right);
    tdm_sched_round(s);
    int forwarded = tdm_sched_rounds(s) - 1;
    /* strand 3: a local copy after strand 1 */
    tdm_sched_strand(s, 3);
    tdm_sched_after(s, forwarded);
    tdm_sched_copy(s, &b->from_two_left, 1, MPI_INT, &b->copied, 1, MPI_INT);
    expect(tdm_sched_finish(s) == MPI_SUCCESS, "the schedule with strands builds");
}

static void run(const tdm_schedule *s, tdm_exec *e, MPI_Comm comm, int tag, int first)
{
    if (first)
        expect(tdm_exec_init(e, s, comm, tag) == MPI_SUCCESS, "the engine takes the schedule");
    else
        tdm_exec_restart(e, tag);
    tdm_exec_kick(e);
    while (!tdm_exec_progress(e))
        ;
    expect(e->error == MPI_SUCCESS, "the schedule runs without error");
    expect(tdm_exec_all_done(e), "every strand finished");
}

static void check_results(const buffers *b, int rank, int size, int pass)
{
    char what[160];
    int left = (rank + size - 1) % size, two_left = (rank + 2 * size - 2) % size, right = (rank + 1) % size;
    snprintf(what, sizeof what, "pass %d: strand 0 received the left neighbour's number", pass);
    expect(b->from_left == 100 * pass + left, what);
    snprintf(what, sizeof what, "pass %d: strand 1 forwarded it after the gate (the number two ranks left)", pass);
    expect(b->from_two_left == 100 * pass + two_left, what);
    snprintf(what, sizeof what, "pass %d: strand 3 copied strand 1's result after its gate", pass);
    expect(b->copied == 100 * pass + two_left, what);
    int wide_ok = 1;
    for (int i = 0; i < WIDE; i++)
        wide_ok &= b->wide_in[i] == 1000 * left + i + pass && b->wide_again[i] == 1000 * right + i + pass;
    snprintf(what, sizeof what, "pass %d: strand 2's messages matched its own receives only", pass);
    expect(wide_ok, what);
}

static void fill(buffers *b, int rank, int pass)
{
    memset(b, 0xff, sizeof *b);
    b->mine = 100 * pass + rank;
    for (int i = 0; i < WIDE; i++)
        b->wide_out[i] = 1000 * rank + i + pass;
}

/* What the builder refuses. */
static void mistakes(void)
{
    tdm_schedule s;
    int x = 0, y = 0;
    tdm_sched_init(&s, "gate_on_nothing", 0, 1);
    tdm_sched_strand(&s, 1);
    tdm_sched_after(&s, 0); /* no round 0 yet */
    expect(s.error == MPI_ERR_INTERN, "a gate on a round that does not exist is refused");
    tdm_sched_destroy(&s);

    tdm_sched_init(&s, "strand_out_of_range", 0, 1);
    tdm_sched_strand(&s, TDM_SCHED_MAX_STRANDS);
    expect(s.error == MPI_ERR_INTERN, "a strand past TDM_SCHED_MAX_STRANDS is refused");
    tdm_sched_destroy(&s);

    tdm_sched_init(&s, "split_with_strands", 0, 1);
    tdm_sched_copy(&s, &x, 1, MPI_INT, &y, 1, MPI_INT);
    tdm_sched_strand(&s, 1);
    tdm_sched_copy(&s, &y, 1, MPI_INT, &x, 1, MPI_INT);
    tdm_sched_split_background(&s);
    expect(s.error == MPI_ERR_INTERN, "split rounds in a schedule with strands are refused");
    tdm_sched_destroy(&s);

    tdm_sched_init(&s, "gate_while_building", 0, 1);
    tdm_sched_copy(&s, &x, 1, MPI_INT, &y, 1, MPI_INT);
    tdm_sched_round(&s);
    tdm_sched_copy(&s, &y, 1, MPI_INT, &x, 1, MPI_INT);
    tdm_sched_after(&s, 0); /* a round is open */
    expect(s.error == MPI_ERR_INTERN, "a gate set while a round is being built is refused");
    tdm_sched_destroy(&s);

    tdm_sched_init(&s, "plain", 0, 1);
    tdm_sched_copy(&s, &x, 1, MPI_INT, &y, 1, MPI_INT);
    expect(tdm_sched_finish(&s) == MPI_SUCCESS && s.round_info == NULL && s.nstrands == 1,
           "a schedule without strands keeps no strand table");
    tdm_sched_destroy(&s);
}

static void dump(const tdm_schedule *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tdm_sched_dump(s, mem);
    fclose(mem);
    expect(strstr(text, "4 strands") != NULL, "the dump counts the strands");
    expect(strstr(text, "(strand 1, after round 0)") != NULL, "the dump names a round's strand and gate");
    free(text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    buffers b;
    tdm_schedule s;
    tdm_exec e;
    build(&s, &b, rank, size);
    if (rank % 2 == 0)
        expect(s.nstrands == 4 && tdm_sched_strand_of(&s, 1) == 2 && tdm_sched_gate_of(&s, 3) == 0 &&
                   tdm_sched_next_of(&s, 1) == 2 && tdm_sched_next_of(&s, 0) == s.nrounds,
               "rounds know their strand, gate and the strand's next round");
    else
        expect(s.nstrands == 4 && tdm_sched_strand_of(&s, 2) == 0 && tdm_sched_gate_of(&s, 2) == 0 &&
                   tdm_sched_next_of(&s, 0) == 1,
               "rounds know their strand, gate and the strand's next round (odd ranks)");
    for (int pass = 0; pass < 3; pass++) {
        fill(&b, rank, pass);
        run(&s, &e, comm, 7 + pass, pass == 0);
        check_results(&b, rank, size, pass);
    }
    tdm_exec_destroy(&e);
    if (rank == 0) {
        mistakes();
        dump(&s);
    }
    tdm_sched_destroy(&s);
    MPI_Comm_free(&comm);
    int all_failures;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_strands (%d ranks): %d checks, %d failed: %s\n", size, checks, all_failures,
               all_failures ? "FAIL" : "PASS");
    MPI_Finalize();
    return all_failures != 0;
}
