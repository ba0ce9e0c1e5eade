/*
 * The split-tree model: a binomial tree of N application ranks on a node of Nproc cores, with
 * P(N) = Nproc - N cores left for communication. The S levels nearest the leaves run on the
 * application cores (one step each, not overlappable); the H(N) - S others run on the communication
 * cores, level i taking ceil(F(N, i) / P(N)) steps once its F(N, i) messages are folded on P(N) cores,
 * and overlap the computation. The unit is the time of one point-to-point message of the buffer.
 *
 *   H(N) = ceil(log2 N),  F(N, i) = floor(N / 2^i + 1/2)
 *   T_blocking(N)        = H(N)
 *   T_nonblocking(S, N)  = min(S, H(N)) + sum_{i=S+1..H(N)} ceil(F(N, i) / P(N))
 *   C(N)                 = (Nproc / N) * T_blocking(Nproc)   (computation sized to the blocking time
 *                                                              on all cores, strong scaling)
 *   T_overlapped(S, N)   = min(S, H(N)) + max(C(N), sum_{i=S+1..H(N)} ceil(F(N, i) / P(N)))
 * Variable-size operations (gather, scatter): the message of level i weighs 2^(i-1), so the first S
 * steps cost W(N, S) = sum_{i=1..S} 2^(i-1) and level i costs ceil(F(N, i) / P(N)) * 2^(i-1);
 * T_blocking becomes W(N, H(N)).
 */
#ifndef TANDEM_SPLIT_TREE_MODEL_H
#define TANDEM_SPLIT_TREE_MODEL_H

typedef struct tdm_split_model {
    int cores;    /* Nproc: cores of the node */
    int variable; /* gather/scatter: weights double toward the root */
} tdm_split_model;

int tdm_split_height(int n);
int tdm_split_level_messages(int n, int level);
double tdm_split_t_blocking(const tdm_split_model *m, int n);
/* The computation C(N) the model overlaps. */
double tdm_split_computation(const tdm_split_model *m, int n);
/* Infinite (HUGE_VAL) when levels are left to the background but no core is free for them. */
double tdm_split_t_nonblocking(const tdm_split_model *m, int s, int n);
double tdm_split_t_overlapped(const tdm_split_model *m, int s, int n);
/* S minimizing T_overlapped (the smallest such S). */
int tdm_split_best_s(const tdm_split_model *m, int n);

#endif
