/* The process-wide state (see state.h). */
#include "state.h"

#include <stddef.h>

/* its first line: what every call reads; generation 0 never matches a shadow memo */
tdm_state tdm_global __attribute__((aligned(64))) = {.shadow_generation = 1};
_Static_assert(offsetof(tdm_state, finalized) <= 64, "the first line of tdm_global");
