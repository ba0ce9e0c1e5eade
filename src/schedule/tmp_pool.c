#include "tmp_pool.h"

#include "../base/smpi_support.h"

#include <pthread.h>
#include <stdlib.h>

#define POOL_MIN_BYTES (256 * 1024)          /* smaller blocks go straight to malloc */
#define POOL_MAX_BLOCKS 8
#define POOL_MAX_TOTAL ((size_t)512 << 20)   /* never keep more than this */
#define HEADER 64                            /* keeps the block's size; keeps alignment */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* several application threads build schedules */
static void *kept[POOL_MAX_BLOCKS];
static size_t kept_total;

static size_t capacity(void *block) { return *(size_t *)block; }

void *tdm_tmp_alloc(size_t bytes)
{
    void *shared = tdm_smpi_shared_temp_alloc(bytes); /* timing-only simulations */
    return shared ? shared : tdm_tmp_alloc_private(bytes);
}

void *tdm_tmp_alloc_private(size_t bytes)
{
    void *block = NULL;
    if (bytes >= POOL_MIN_BYTES) { /* the smallest kept block that fits without wasting over half */
        pthread_mutex_lock(&lock);
        int best = -1;
        for (int i = 0; i < POOL_MAX_BLOCKS; i++)
            if (kept[i] && capacity(kept[i]) >= bytes && capacity(kept[i]) <= 2 * bytes &&
                (best < 0 || capacity(kept[i]) < capacity(kept[best])))
                best = i;
        if (best >= 0) {
            block = kept[best];
            kept[best] = NULL;
            kept_total -= capacity(block);
        }
        pthread_mutex_unlock(&lock);
    }
    if (!block) {
        block = malloc(HEADER + bytes);
        if (!block)
            return NULL;
        *(size_t *)block = bytes;
    }
    return (char *)block + HEADER;
}

void tdm_tmp_free(void *p)
{
    if (!p || tdm_smpi_shared_temp_free(p))
        return;
    void *block = (char *)p - HEADER;
    size_t bytes = capacity(block);
    if (bytes >= POOL_MIN_BYTES) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < POOL_MAX_BLOCKS && block; i++)
            if (!kept[i] && kept_total + bytes <= POOL_MAX_TOTAL) {
                kept[i] = block;
                kept_total += bytes;
                block = NULL;
            }
        pthread_mutex_unlock(&lock);
    }
    free(block);
}

void tdm_tmp_pool_release(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < POOL_MAX_BLOCKS; i++) {
        free(kept[i]);
        kept[i] = NULL;
    }
    kept_total = 0;
    pthread_mutex_unlock(&lock);
}
