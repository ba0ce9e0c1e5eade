#!/bin/sh
# tandem-cg against PETSc's KSP on the same problem and ranks: classic CG against KSPCG, pipelined CG
# against KSPPIPECG, both Jacobi-preconditioned with the unpreconditioned residual norm. Passes when
# the iteration counts are within 2 and the error norms ||x - 1|| within a factor of 2.
# usage: cg_vs_petsc.sh DIR LAUNCHER... -- CG PETSC_CG MxN RTOL classic|pipelined
set -e
dir=$1; shift
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
cg=$1 petsc=$2 grid=$3 rtol=$4 variant=$5
ksp=cg
[ "$variant" = pipelined ] && ksp=pipecg
ours=$($launcher "$cg" --grid "$grid" --rtol "$rtol" --variant "$variant" | tail -1)
theirs=$($launcher "$petsc" -m "${grid%x*}" -n "${grid#*x}" -ksp_type $ksp -pc_type jacobi \
         -ksp_norm_type unpreconditioned -ksp_rtol "$rtol" | tail -1)
echo "tandem-cg --variant $variant: $ours"
echo "PETSc KSP $ksp:            $theirs"
echo "$ours $theirs" | awk '{ k1 = $2; e1 = $6; k2 = $8; e2 = $12
  ok = (k1 - k2 <= 2 && k2 - k1 <= 2 && e1 <= 2 * e2 && e2 <= 2 * e1)
  print ok ? "same as PETSc (iterations within 2, errors within a factor of 2)" : "DIFFERENT from PETSc"
  exit !ok }'
