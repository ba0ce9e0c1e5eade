#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds the README example against it twice: with
# CMake's find_package(Tandem) and with pkg-config, and runs both on 2 ranks.
# usage: test_install.sh <build dir> <source dir> <mpicc> <mpiexec> [mpiexec options...]
set -euo pipefail
build=$1 src=$2 mpicc=$3 mpiexec=$4
shift 4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null

cmake -S "$src/tests/install_consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DMPI_C_COMPILER="$mpicc" -DEXAMPLE_SOURCE="$src/examples/overlap_allreduce.c" \
  -DCMAKE_BUILD_RPATH="$scratch/prefix/lib" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$mpiexec" -n 2 "$@" "$scratch/consumer/overlap_allreduce"

libdir=$(dirname "$(find "$scratch/prefix" -name tandem.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs tandem)
# shellcheck disable=SC2086
"$mpicc" "$src/examples/overlap_allreduce.c" -o "$scratch/with_pkgconfig" $flags -Wl,-rpath,"$(dirname "$libdir")"
"$mpiexec" -n 2 "$@" "$scratch/with_pkgconfig"
echo "install, find_package(Tandem) and pkg-config: PASS"
