#!/usr/bin/env bash
# Installs the build into a scratch prefix, as a user would, and checks that the installed tree works
# from there without ldconfig or LD_LIBRARY_PATH:
#   - every installed program answers --help, a 2-rank tandem-cg solves, and the installed tandem-run
#     names the installed interposer;
#   - the README example builds against the installed package with CMake's find_package(Tandem) and
#     with pkg-config, and runs on 2 ranks;
#   - the installed programs still run once the whole prefix is moved elsewhere.
# usage: test_install.sh <build dir> <source dir> <mpicc> <mpiexec> [mpiexec options...]
set -euo pipefail
build=$1 src=$2 mpicc=$3 mpiexec=$4
shift 4
unset LD_LIBRARY_PATH
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

fail() { echo "FAIL: $*" >&2; exit 1; }

# The programs of the installed tree, from wherever it lies.
check_programs() {
  local top=$1 bin=$1/bin programs=0
  shift
  for program in "$bin"/*; do
    out=$("$program" --help 2>&1) || fail "$(basename "$program") --help exits $?: $out"
    grep -q "^usage: $(basename "$program")\|^usage: \[mpirun -n P\] $(basename "$program")" <<<"$out" ||
      fail "$(basename "$program") --help does not print its usage: $out"
    programs=$((programs + 1))
  done
  [ "$programs" -ge 3 ] || fail "only $programs programs installed in $bin"
  if [ -x "$bin/tandem-cg" ]; then
    out=$("$mpiexec" -n 2 "$@" "$bin/tandem-cg" --grid 12x10 --rtol 1e-8 2>&1) || fail "tandem-cg on 2 ranks: $out"
    grep -Eq "iterations [0-9]+ relres [0-9.e+-]+ error [0-9.e+-]+" <<<"$out" || fail "tandem-cg printed: $out"
  fi
  out=$("$bin/tandem-run" --dry-run -n 2 ./program 2>&1) || fail "tandem-run --dry-run: $out"
  lib=$(grep -Eo "LD_PRELOAD[= ][^ :]*" <<<"$out" | head -1 | cut -c12-) # -x LD_PRELOAD=..., -genv LD_PRELOAD ...
  [ -n "$lib" ] && [ -f "$lib" ] || fail "the installed tandem-run preloads '$lib', not a file: $out"
  case $(realpath "$lib") in
  "$(realpath "$top")"/*) ;;
  *) fail "the installed tandem-run preloads $lib, outside its prefix $top" ;;
  esac
  echo "installed programs at $top: $programs answer --help, tandem-cg solves on 2 ranks, tandem-run finds $lib"
}
check_programs "$prefix" "$@"

cmake -S "$src/tests/install_consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPI_C_COMPILER="$mpicc" -DEXAMPLE_SOURCE="$src/examples/overlap_allreduce.c" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$mpiexec" -n 2 "$@" "$scratch/consumer/overlap_allreduce"

libdir=$(dirname "$(find "$prefix" -name tandem.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs tandem)
# shellcheck disable=SC2086
"$mpicc" "$src/examples/overlap_allreduce.c" -o "$scratch/with_pkgconfig" $flags -Wl,-rpath,"$(dirname "$libdir")"
"$mpiexec" -n 2 "$@" "$scratch/with_pkgconfig"

mv "$prefix" "$scratch/moved"
check_programs "$scratch/moved" "$@"
echo "install, installed programs from any prefix, find_package(Tandem) and pkg-config: PASS"
