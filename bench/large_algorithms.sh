#!/usr/bin/env bash
# Issue 4's measurement: Tandem's large-message algorithms forced one by one (and the default), 2 ranks
# bound to the machine's cores, beside native MPI in the same run. Writes
# bench/results/large-algorithms-<mpi>-2ranks.txt.
#   bench/large_algorithms.sh [openmpi|mpich] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${1:-openmpi}
reps=${2:-5}
bench=build-$mpi/tools/tandem-bench
out=bench/results/large-algorithms-$mpi-2ranks.txt
[ -x "$bench" ] || { echo "build $bench first (scripts/test $mpi)" >&2; exit 2; }
if [ "$mpi" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    run=(mpirun.openmpi -np 2 --bind-to core)
else
    run=(mpiexec.mpich -np 2 -bind-to core)
fi
{
    echo "# Tandem large-message algorithms forced one by one, 2 ranks bound to the $(nproc) cores, $mpi, $(date -u +%F)"
    echo "# bench/large_algorithms.sh $mpi $reps: per algorithm, TANDEM_<COLLECTIVE>=alg ${run[*]} $bench --collectives C --sizes S --reps $reps"
    echo "# allreduce --sizes 1M,16M,64M; reduce_scatter_block and allgather --sizes 512K,8M,32M (per-rank blocks: 1, 16 and 64 MiB in all)"
    echo "# columns: collective bytes mpi-blocking mpi-nonblocking tandem ratio(tandem/best native) model(LogGP, built-in parameters) algorithm"
    for spec in "allreduce ALLREDUCE 1M,16M,64M default ring rabenseifner torus_bucket torus_bucket_uni" \
                "reduce_scatter_block REDUCE_SCATTER_BLOCK 512K,8M,32M default ring pairwise torus_bucket torus_bucket_uni" \
                "allgather ALLGATHER 512K,8M,32M default ring recursive_doubling bruck torus_bucket torus_bucket_uni"; do
        set -- $spec
        coll=$1 var=TANDEM_$2 sizes=$3
        shift 3
        for alg in "$@"; do
            echo "== $coll $alg"
            if [ "$alg" = default ]; then
                env -u "$var" "${run[@]}" "$bench" --collectives "$coll" --sizes "$sizes" --reps "$reps"
            else
                env "$var=$alg" "${run[@]}" "$bench" --collectives "$coll" --sizes "$sizes" --reps "$reps"
            fi | grep "^$coll "
        done
    done
} | tee "$out"
echo "wrote $out"
