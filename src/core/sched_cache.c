#include "sched_cache.h"

#include "../base/state.h"
#include "express_calls.h"
#include "op_rules.h"
#include "request.h"

struct tdm_request *tdm_sched_cache_take(tdm_shadow *sh, const tdm_sched_key *key)
{
    if (sh->user_freed)
        return NULL;
    for (int i = 0; i < TDM_SHADOW_CACHE_SLOTS; i++) {
        struct tdm_request *req = sh->cache[i];
        if (req && tdm_sched_key_equal(&req->key, key)) {
            sh->cache[i] = NULL;
            return req;
        }
    }
    return NULL;
}

static int is_reduction(tdm_coll_kind kind)
{
    return kind == TDM_COLL_REDUCE || kind == TDM_COLL_ALLREDUCE || kind == TDM_COLL_SCAN ||
           kind == TDM_COLL_EXSCAN || kind == TDM_COLL_REDUCE_SCATTER_BLOCK;
}

/* Only what the key names may shape the schedule: a derived datatype or a user op could be freed
 * and its handle reused for another one, and big temporaries are not worth holding. */
int tdm_sched_cache_admits(const struct tdm_request *req)
{
    return req->nowned == 0 && (!is_reduction(req->key.kind) || tdm_op_is_predefined(req->key.op)) &&
           req->run.sched.tmp_bytes <= TDM_SCHED_CACHE_MAX_TMP_BYTES;
}

int tdm_sched_cache_keep(struct tdm_request *req)
{
    tdm_shadow *sh = req->cache_home ? req->cache_home : req->run.shadow;
    if (!req->cacheable || !sh || sh->user_freed || req->run.exec.error != MPI_SUCCESS ||
        req->key.settings_epoch != tdm_global.settings_epoch)
        return 0;
    int slot = 0;
    while (slot < TDM_SHADOW_CACHE_SLOTS && sh->cache[slot])
        slot++;
    if (slot == TDM_SHADOW_CACHE_SLOTS) { /* all taken: replace them in turn */
        slot = sh->cache_victim;
        sh->cache_victim = (sh->cache_victim + 1) % TDM_SHADOW_CACHE_SLOTS;
        tdm_request_release(sh->cache[slot]);
    }
    sh->cache[slot] = req;
    return 1;
}

void tdm_sched_cache_clear(tdm_shadow *sh)
{
    tdm_express_clear(sh);
    for (int i = 0; i < TDM_SHADOW_CACHE_SLOTS; i++) {
        if (sh->cache[i])
            tdm_request_release(sh->cache[i]);
        sh->cache[i] = NULL;
    }
}
