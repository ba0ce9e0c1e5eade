/* The process-wide state (see state.h). */
#include "state.h"

tdm_state tdm_global __attribute__((aligned(64))); /* its first line: what every call reads */
