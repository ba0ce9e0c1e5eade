#include "op_hold.h"

#include "../base/error.h"
#include "op_rules.h"
#include "tandem.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    MPI_Op op;
    int uses;         /* calls in flight that apply it */
    int free_pending; /* the program freed it: MPI_Op_free once uses reach 0 */
} held_op;

/* Few user ops are in flight at once: a short array, searched linearly, under a lock (application
 * threads start and release calls concurrently). */
static held_op *held;
static int nheld, held_cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static held_op *find(MPI_Op op)
{
    for (int i = 0; i < nheld; i++)
        if (held[i].op == op)
            return &held[i];
    return NULL;
}

static void forget(held_op *h) { *h = held[--nheld]; }

int tdm_op_hold(MPI_Op op)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    held_op *h = find(op);
    if (!h && nheld == held_cap) {
        int cap = held_cap ? 2 * held_cap : 8;
        held_op *grown = realloc(held, sizeof *held * (size_t)cap);
        if (grown) {
            held = grown;
            held_cap = cap;
        }
    }
    if (h)
        h->uses++;
    else if (nheld < held_cap)
        held[nheld++] = (held_op){op, 1, 0};
    else
        rc = MPI_ERR_NO_MEM;
    pthread_mutex_unlock(&lock);
    return rc;
}

void tdm_op_release(MPI_Op op)
{
    int free_now = 0;
    pthread_mutex_lock(&lock);
    held_op *h = find(op);
    if (h && --h->uses == 0) {
        free_now = h->free_pending;
        forget(h);
    }
    pthread_mutex_unlock(&lock);
    if (free_now)
        MPI_Op_free(&op);
}

int tdm_op_free(MPI_Op op)
{
    pthread_mutex_lock(&lock);
    held_op *h = find(op);
    if (h)
        h->free_pending = 1;
    pthread_mutex_unlock(&lock);
    return h ? MPI_SUCCESS : MPI_Op_free(&op);
}

void tdm_op_hold_finalize(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nheld; i++)
        if (held[i].free_pending)
            MPI_Op_free(&held[i].op);
    free(held);
    held = NULL;
    nheld = held_cap = 0;
    pthread_mutex_unlock(&lock);
}

int TDM_Op_free(MPI_Op *op)
{
    static const char *fn = "TDM_Op_free";
    if (!op)
        return tdm_error(fn, MPI_ERR_ARG, "op is NULL (argument op)");
    if (*op == MPI_OP_NULL)
        return tdm_error(fn, MPI_ERR_OP, "op is MPI_OP_NULL (argument op)");
    if (tdm_op_is_predefined(*op))
        return tdm_error(fn, MPI_ERR_OP, "%s is predefined and cannot be freed (argument op)", tdm_op_name(*op));
    int rc = tdm_op_free(*op);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "MPI_Op_free", rc);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
