/*
 * Memory for schedule temporaries. Large blocks come from the system as fresh pages (mmap), and
 * touching them for the first time costs page faults on every collective: a 64 MiB ring allreduce on
 * 2 ranks took 1.9x the time with fresh buffers. Blocks from 256 KiB up are therefore kept when freed
 * (a few, bounded in total) and handed out again.
 */
#ifndef TANDEM_TMP_POOL_H
#define TANDEM_TMP_POOL_H

#include <stddef.h>

void *tdm_tmp_alloc(size_t bytes);
/* Memory whose content matters even in a timing-only simulation (where large temporaries are one
 * block shared by every rank: smpi_support.h): a message that carries a header. */
void *tdm_tmp_alloc_private(size_t bytes);
void tdm_tmp_free(void *p);
/* Returns every kept block to the system (TDM_Finalize). */
void tdm_tmp_pool_release(void);

#endif
