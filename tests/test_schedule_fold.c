/*
 * The builder folds a run of like local actions into one repeated action (schedule.h), and the engine
 * runs it as it would run the separate actions. Built and run on one rank (MPI_COMM_SELF):
 *   - copies at even strides in both buffers become one action; a stride that changes, an action of
 *     another kind between, other counts, types or ops, or a new round start a new one;
 *   - the folded schedule writes exactly what the same actions, one by one, write;
 *   - the model counts every repetition's bytes, and the dump says how often an action repeats.
 */
#include "../src/engine/exec.h"
#include "../src/model/schedule_cost.h"

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

static void run(const tdm_schedule *s)
{
    tdm_exec e;
    expect(tdm_exec_init(&e, s, MPI_COMM_SELF, 0) == MPI_SUCCESS, "the engine takes the schedule");
    while (!tdm_exec_progress(&e))
        ;
    expect(e.error == MPI_SUCCESS, "the schedule runs without error");
    tdm_exec_destroy(&e);
}

/* Copies: what folds and what does not. */
static void copies(void)
{
    int src[64], dst[64], want[64];
    for (int i = 0; i < 64; i++)
        src[i] = 1000 + i, dst[i] = want[i] = -1;
    tdm_schedule s;
    tdm_sched_init(&s, "fold_copies", 0, 1);
    for (int k = 0; k < 6; k++) /* two ints from every 4th of src to every 8th of dst: one action */
        tdm_sched_copy(&s, src + 4 * k, 2, MPI_INT, dst + 8 * k, 2, MPI_INT);
    tdm_sched_copy(&s, src + 28, 2, MPI_INT, dst + 50, 2, MPI_INT);  /* off the progression: a new action */
    tdm_sched_copy(&s, src + 30, 1, MPI_INT, dst + 53, 1, MPI_INT);  /* another count: a new action */
    tdm_sched_copy(&s, src + 31, 1, MPI_INT, dst + 54, 1, MPI_INT);  /* folds into the one before */
    tdm_sched_copy(&s, src + 40, 4, MPI_BYTE, dst + 56, 4, MPI_BYTE); /* another type: a new action */
    tdm_sched_round(&s);
    tdm_sched_copy(&s, src + 32, 1, MPI_INT, dst + 55, 1, MPI_INT);  /* a new round: a new action */
    expect(tdm_sched_finish(&s) == MPI_SUCCESS, "the copy schedule builds");
    expect(s.nactions == 5, "10 copies make 5 actions");
    expect(s.actions[0].repeat == 6 && s.actions[0].src_stride == 4 * (MPI_Aint)sizeof(int) &&
               s.actions[0].dst_stride == 8 * (MPI_Aint)sizeof(int),
           "six copies at even strides are one action repeated six times");
    expect(s.actions[1].repeat == 1 && s.actions[2].repeat == 2 && s.actions[3].repeat == 1 &&
               s.actions[4].repeat == 1,
           "a broken progression, another count, another type and a new round each start an action");

    for (int k = 0; k < 6; k++)
        memcpy(want + 8 * k, src + 4 * k, 2 * sizeof(int));
    memcpy(want + 50, src + 28, 2 * sizeof(int));
    memcpy(want + 53, src + 30, 2 * sizeof(int));
    memcpy(want + 56, src + 40, 4);
    want[55] = src[32];
    run(&s);
    expect(memcmp(dst, want, sizeof dst) == 0, "the folded copies write what the copies one by one write");

    tdm_round_load loads[2];
    tdm_schedule_loads(&s, 1, loads);
    expect(loads[0].copied_bytes == 6 * 2 + 2 + 2 + 4 && loads[1].copied_bytes == 1,
           "the model counts the elements of every repetition");

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    tdm_sched_dump(&s, mem);
    fclose(mem);
    expect(text && strstr(text, "6 times, moving by 16 and 32 bytes"), "the dump says how an action repeats");
    free(text);
    tdm_sched_destroy(&s);
}

/* Reductions: folded runs, a copy between, another op; overlapping progressions keep their order. */
static void reductions(void)
{
    int in[32], acc[32], want[32];
    for (int i = 0; i < 32; i++)
        in[i] = i + 1, acc[i] = want[i] = 100 * i;
    tdm_schedule s;
    tdm_sched_init(&s, "fold_reductions", 0, 1);
    for (int k = 0; k < 4; k++) /* acc[3k .. 3k+3) += in[2k .. 2k+3): the repetitions overlap in `in` */
        tdm_sched_reduce(&s, in + 2 * k, acc + 3 * k, 3, MPI_INT, MPI_SUM);
    tdm_sched_copy(&s, acc, 1, MPI_INT, acc + 31, 1, MPI_INT); /* between: the next reduce starts anew */
    tdm_sched_reduce(&s, in + 8, acc + 12, 3, MPI_INT, MPI_SUM);
    tdm_sched_reduce(&s, in + 10, acc + 15, 3, MPI_INT, MPI_PROD); /* another op */
    for (int k = 0; k < 3; k++) /* the same element again and again: stride 0 in dst, applied in order */
        tdm_sched_reduce(&s, in + k, acc + 20, 1, MPI_INT, MPI_MAX);
    expect(tdm_sched_finish(&s) == MPI_SUCCESS, "the reduction schedule builds");
    expect(s.nactions == 5 && s.actions[0].repeat == 4 && s.actions[2].repeat == 1 && s.actions[3].repeat == 1 &&
               s.actions[4].repeat == 3 && s.actions[4].dst_stride == 0,
           "reductions fold like copies, and not across a copy or another op");

    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 3; j++)
            want[3 * k + j] += in[2 * k + j];
    want[31] = want[0];
    for (int j = 0; j < 3; j++)
        want[12 + j] += in[8 + j];
    for (int j = 0; j < 3; j++)
        want[15 + j] *= in[10 + j];
    for (int k = 0; k < 3; k++)
        want[20] = want[20] > in[k] ? want[20] : in[k];
    run(&s);
    expect(memcmp(acc, want, sizeof acc) == 0, "the folded reductions compute what they compute one by one");

    tdm_round_load load;
    tdm_schedule_loads(&s, sizeof(int), &load);
    expect(load.reduced_bytes == (4 * 3 + 3 + 3 + 3) * sizeof(int), "the model counts every repetition's reduction");
    tdm_sched_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    copies();
    reductions();
    printf("%d checks, %d failures\n", checks, failures);
    MPI_Finalize();
    return failures != 0;
}
