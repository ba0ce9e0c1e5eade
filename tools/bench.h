/* tandem-bench's parts: the latency table (tandem_bench.c), the overlap sweep (bench_overlap.c) and
 * the placement report (bench_placement.c). */
#ifndef TANDEM_BENCH_H
#define TANDEM_BENCH_H

#include "tandem.h"

#include <stdlib.h>

int bench_show_placement(void);

#endif
