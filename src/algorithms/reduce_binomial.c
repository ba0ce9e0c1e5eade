/*
 * Binomial-tree reduce. A commutative op uses the tree rooted at the root. A non-commutative op uses
 * the tree rooted at rank 0, where every subtree is a contiguous range of ranks and children are
 * always higher than their parent, so acc = acc op child keeps MPI's canonical order; rank 0 then
 * sends the result to the root. Split, the edges of the S levels nearest the leaves (spanning fewer
 * than 2^S ranks) run first, in the foreground; the rest in the background.
 */
#include "alg_util.h"

int tdm_reduce_binomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank, n = a->count;
    int is_root = r == a->root;
    int tree_root = a->commutative ? a->root : 0;
    int vr = tdm_rel_rank(r, tree_root, p);
    int split = a->split_levels >= 0, foreground_mask = split ? 1 << a->split_levels : 0;
    const void *input = is_root ? tdm_reduction_input(a) : a->sendbuf;

    int children = 0, mask = 1;
    for (; mask < p && !(vr & mask); mask <<= 1)
        if (vr + mask < p)
            children++;

    const void *result = input; /* a leaf forwards its input as is */
    if (children > 0) {
        void *acc = is_root ? a->recvbuf : tdm_tmp_elems(s, &a->dtype, n);
        if (acc != input)
            tdm_sched_copy(s, input, n, a->datatype, acc, n, a->datatype);
        void *inbox[2] = {tdm_tmp_elems(s, &a->dtype, n),
                          children > 1 ? tdm_tmp_elems(s, &a->dtype, n) : NULL};
        int k = 0;
        for (int m = 1; m < p && !(vr & m); m <<= 1) {
            if (vr + m >= p)
                continue;
            if (split && m >= foreground_mask)
                tdm_sched_split_background(s);
            if (k > 0) /* fold the previous child while this one's message arrives */
                tdm_reduce_from_higher(s, a, inbox[(k - 1) % 2], acc, n);
            tdm_sched_recv(s, inbox[k % 2], n, a->datatype, tdm_abs_rank(vr + m, tree_root, p));
            tdm_sched_round(s);
            k++;
        }
        tdm_reduce_from_higher(s, a, inbox[(k - 1) % 2], acc, n);
        result = acc;
    } else if (p == 1 && !a->in_place) {
        tdm_sched_copy(s, input, n, a->datatype, a->recvbuf, n, a->datatype);
    }

    if (vr != 0) {
        if (split && mask >= foreground_mask)
            tdm_sched_split_background(s);
        tdm_sched_send(s, result, n, a->datatype, tdm_abs_rank(vr - mask, tree_root, p));
        tdm_sched_round(s);
    }
    if (split) /* a subtree entirely in the foreground: the background starts after it */
        tdm_sched_split_background(s);
    if (tree_root != a->root) { /* non-commutative: rank 0 hands the result to the root */
        if (r == tree_root)
            tdm_sched_send(s, result, n, a->datatype, a->root);
        else if (is_root)
            tdm_sched_recv(s, a->recvbuf, n, a->datatype, tree_root);
    }
    return tdm_sched_finish(s);
}
