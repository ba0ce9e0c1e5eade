/* The process-wide state (see state.h). */
#include "state.h"

tdm_state tdm_global;
