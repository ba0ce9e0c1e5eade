/* Creating an overlap pattern: the spec checked on each rank and agreed across ranks (a rank whose spec is
 * refused still joins the agreement, so that no rank waits for it), the communicators duplicated. */
#include "pattern.h"

#include "../base/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *fn_create = "TDM_Pattern_create";

static int reduces(TDM_Pattern_kind k) { return k == TDM_PATTERN_ALLREDUCE || k == TDM_PATTERN_REDUCE_SCATTER; }
static int rooted(TDM_Pattern_kind k) { return k == TDM_PATTERN_GATHER || k == TDM_PATTERN_GATHERV; }
static int variable(TDM_Pattern_kind k)
{
    return k == TDM_PATTERN_ALLGATHERV || k == TDM_PATTERN_GATHERV || k == TDM_PATTERN_ALLTOALLV;
}

int tdm_pattern_max_tile(const struct tdm_pattern *pt)
{
    long long per_item = (long long)pt->item_count_max * pt->size; /* agreed: the same limit on every rank */
    return per_item > 0 ? (int)(INT_MAX / per_item < INT_MAX ? INT_MAX / per_item : INT_MAX) : INT_MAX;
}

/* This rank's spec: MPI_SUCCESS or the error, with its message recorded. */
static int check_local(const TDM_Pattern_spec *s, int size)
{
    if (s->kind < TDM_PATTERN_ALLGATHER || s->kind > TDM_PATTERN_REDUCE_SCATTER)
        return tdm_error(fn_create, MPI_ERR_ARG, "kind is %d, not a TDM_Pattern_kind (argument spec->kind)", (int)s->kind);
    if (s->datatype == MPI_DATATYPE_NULL)
        return tdm_error(fn_create, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL (argument spec->datatype)");
    if (reduces(s->kind) && s->op == MPI_OP_NULL)
        return tdm_error(fn_create, MPI_ERR_OP, "op is MPI_OP_NULL; the reductions need one (argument spec->op)");
    if (rooted(s->kind) && (s->root < 0 || s->root >= size))
        return tdm_error(fn_create, MPI_ERR_ROOT, "root is %d; expected 0 .. %d (argument spec->root)", s->root, size - 1);
    if (s->items < 0)
        return tdm_error(fn_create, MPI_ERR_ARG, "items is %d; expected 0 or more (argument spec->items)", s->items);
    if (s->item_count < 0)
        return tdm_error(fn_create, MPI_ERR_COUNT, "item_count is %d; expected 0 or more (argument spec->item_count)",
                         s->item_count);
    if (s->tile < 0)
        return tdm_error(fn_create, MPI_ERR_ARG, "tile is %d; expected 1 or more, or TDM_PATTERN_AUTO (argument spec->tile)",
                         s->tile);
    if (s->window < 0)
        return tdm_error(fn_create, MPI_ERR_ARG,
                         "window is %d; expected 1 or more, or TDM_PATTERN_AUTO (argument spec->window)", s->window);
    if (!s->compute)
        return tdm_error(fn_create, MPI_ERR_ARG, "compute is NULL (argument spec->compute)");
    return MPI_SUCCESS;
}

/* What every rank must agree on, as maxima of each value and of its negation (one allreduce gives both
 * the largest and the smallest). The first entry: a rank refused its spec. */
enum { AGREE_REFUSED, AGREE_KIND, AGREE_ROOT, AGREE_TILE, AGREE_WINDOW, AGREE_TUNE, AGREE_ITEMS, AGREE_COUNT, AGREE_N };
static const char *const agree_names[AGREE_N] = {"", "kind", "root", "tile", "window", "tune", "items", "item_count"};

static int agree(struct tdm_pattern *pt, int refused)
{
    const TDM_Pattern_spec *s = &pt->spec;
    int mine[AGREE_N] = {refused, (int)s->kind, rooted(s->kind) ? s->root : 0, s->tile, s->window, !!s->tune,
                         s->items, s->item_count};
    int both[2 * AGREE_N], all[2 * AGREE_N];
    for (int i = 0; i < AGREE_N; i++)
        both[i] = mine[i], both[AGREE_N + i] = -mine[i];
    int rc = TDM_Allreduce(both, all, 2 * AGREE_N, MPI_INT, MPI_MAX, pt->spec.comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (refused)
        return refused;
    if (all[AGREE_REFUSED])
        return tdm_error(fn_create, MPI_ERR_ARG, "another rank's spec was refused (see the message there)");
    pt->items_max = all[AGREE_ITEMS], pt->item_count_max = all[AGREE_COUNT];
    for (int i = AGREE_KIND; i < AGREE_N; i++) {
        int low = -all[AGREE_N + i], high = all[i];
        if (low == high || (i == AGREE_ITEMS && !reduces(s->kind)) || (i == AGREE_COUNT && variable(s->kind)))
            continue;
        return tdm_error(fn_create, MPI_ERR_ARG, "%s differs between ranks (%d .. %d; %d here)%s (argument spec->%s)",
                         agree_names[i], low, high, mine[i],
                         i == AGREE_ITEMS ? ": the reductions need the same on every rank" : "", agree_names[i]);
    }
    return MPI_SUCCESS;
}

int TDM_Pattern_create(const TDM_Pattern_spec *spec, TDM_Pattern *pattern)
{
    if (!pattern)
        return tdm_error(fn_create, MPI_ERR_ARG, "pattern is NULL (argument pattern)");
    *pattern = NULL;
    if (!spec)
        return tdm_error(fn_create, MPI_ERR_ARG, "spec is NULL (argument spec)");
    int initialized = 0;
    TDM_Initialized(&initialized);
    if (!initialized)
        return tdm_error(fn_create, MPI_ERR_OTHER, "called outside TDM_Init .. TDM_Finalize");
    int inter = 0;
    if (spec->comm == MPI_COMM_NULL || MPI_Comm_test_inter(spec->comm, &inter) != MPI_SUCCESS)
        return tdm_error(fn_create, MPI_ERR_COMM, "comm is not a valid communicator (argument spec->comm)");
    if (inter)
        return tdm_error(fn_create, MPI_ERR_COMM, "comm is an intercommunicator (argument spec->comm)");

    struct tdm_pattern *pt = calloc(1, sizeof *pt);
    if (!pt)
        return tdm_error(fn_create, MPI_ERR_NO_MEM, "no memory for the pattern");
    pt->spec = *spec;
    pt->data_comm = pt->sizes_comm = MPI_COMM_NULL;
    MPI_Comm_rank(spec->comm, &pt->rank);
    MPI_Comm_size(spec->comm, &pt->size);
    int refused = check_local(spec, pt->size);
    int size = 0;
    if (!refused && (MPI_Type_get_extent(spec->datatype, &(MPI_Aint){0}, &pt->extent) != MPI_SUCCESS ||
                     MPI_Type_get_true_extent(spec->datatype, &pt->true_lb, &pt->true_extent) != MPI_SUCCESS ||
                     MPI_Type_size(spec->datatype, &size) != MPI_SUCCESS))
        refused = tdm_error(fn_create, MPI_ERR_TYPE, "datatype is not a valid datatype (argument spec->datatype)");
    pt->elem_size = size;
    int rc = agree(pt, refused);
    pt->per_rank = spec->kind == TDM_PATTERN_ALLTOALL || spec->kind == TDM_PATTERN_ALLTOALLV ||
                   spec->kind == TDM_PATTERN_REDUCE_SCATTER;
    pt->variable = variable(spec->kind);
    if (rc == MPI_SUCCESS && tdm_pattern_max_tile(pt) < 1)
        rc = tdm_error(fn_create, MPI_ERR_COUNT, "item_count %d on %d ranks: one item's collective is past INT_MAX "
                       "elements (argument spec->item_count)", pt->item_count_max, pt->size);
    else if (rc == MPI_SUCCESS && spec->tile > tdm_pattern_max_tile(pt))
        rc = tdm_error(fn_create, MPI_ERR_COUNT, "tile %d of %d elements per item%s is more than INT_MAX elements in a "
                       "collective (argument spec->tile)", spec->tile, spec->item_count, pt->size > 1 ? " on each rank" : "");
    /* the sizes' communicator: the v-forms' own; the others use it only to plan and tune, before or after
     * their tiles' collectives, and share the data's */
    if (rc == MPI_SUCCESS && (MPI_Comm_dup(spec->comm, &pt->data_comm) != MPI_SUCCESS ||
                              (pt->variable && MPI_Comm_dup(spec->comm, &pt->sizes_comm) != MPI_SUCCESS)))
        rc = tdm_error(fn_create, MPI_ERR_COMM, "could not duplicate comm (argument spec->comm)");
    if (rc != MPI_SUCCESS) {
        TDM_Pattern p = pt;
        TDM_Pattern_free(&p);
        return rc;
    }
    if (!pt->variable)
        pt->sizes_comm = pt->data_comm;
    pt->tile = spec->tile, pt->window = spec->window;
    pt->plan_tile = spec->tile == TDM_PATTERN_AUTO, pt->plan_window = spec->window == TDM_PATTERN_AUTO;
    /* the tuner varies what the spec leaves auto: with a tile and a window given, nothing */
    pt->tuning = spec->tune && (pt->plan_tile || pt->plan_window);
    pt->settled = !pt->tuning;
    *pattern = pt;
    return MPI_SUCCESS;
}

int TDM_Pattern_get_params(TDM_Pattern pattern, int *tile, int *window, int *settled)
{
    const char *fn = "TDM_Pattern_get_params";
    if (!pattern)
        return tdm_error(fn, MPI_ERR_ARG, "pattern is NULL (argument pattern)");
    if (tile)
        *tile = pattern->tile;
    if (window)
        *window = pattern->window;
    if (settled)
        *settled = pattern->settled;
    return MPI_SUCCESS;
}

int TDM_Pattern_get_times(TDM_Pattern pattern, TDM_Pattern_times *times)
{
    const char *fn = "TDM_Pattern_get_times";
    if (!pattern || !times)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", !pattern ? "pattern" : "times",
                         !pattern ? "pattern" : "times");
    *times = pattern->last;
    return MPI_SUCCESS;
}

int TDM_Pattern_free(TDM_Pattern *pattern)
{
    if (!pattern || !*pattern)
        return tdm_error("TDM_Pattern_free", MPI_ERR_ARG, "%s is NULL (argument pattern)", !pattern ? "pattern" : "*pattern");
    struct tdm_pattern *pt = *pattern;
    for (int i = 0; i < pt->nslots; i++)
        tdm_tile_slot_free(&pt->slots[i]);
    free(pt->slots);
    int finalized = 0; /* a C++ Pattern destroyed after MPI_Finalize: its memory only */
    MPI_Finalized(&finalized);
    if (finalized)
        pt->data_comm = pt->sizes_comm = MPI_COMM_NULL;
    if (pt->sizes_comm != MPI_COMM_NULL && pt->sizes_comm != pt->data_comm)
        MPI_Comm_free(&pt->sizes_comm);
    if (pt->data_comm != MPI_COMM_NULL)
        MPI_Comm_free(&pt->data_comm);
    free(pt);
    *pattern = NULL;
    return MPI_SUCCESS;
}
