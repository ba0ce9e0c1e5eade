#!/bin/sh
# tandem-cg's two variants on the same problem (where PETSc cannot be the reference): the same
# iteration count within 2 and error norms within a factor of 2.
# usage: cg_variants_agree.sh DIR LAUNCHER... -- CG MxN RTOL
set -e
dir=$1; shift
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
cg=$1 grid=$2 rtol=$3
classic=$($launcher "$cg" --grid "$grid" --rtol "$rtol" --variant classic | tail -1)
pipelined=$($launcher "$cg" --grid "$grid" --rtol "$rtol" --variant pipelined | tail -1)
echo "classic:   $classic"
echo "pipelined: $pipelined"
echo "$classic $pipelined" | awk '{ k1 = $2; e1 = $6; k2 = $8; e2 = $12
  ok = (k1 - k2 <= 2 && k2 - k1 <= 2 && e1 <= 2 * e2 && e2 <= 2 * e1)
  print ok ? "the variants agree" : "the variants DISAGREE"
  exit !ok }'
