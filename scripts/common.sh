# Shared by scripts/demo and scripts/test: installing what is missing and building one configuration.
# shellcheck shell=bash
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACKAGES="cmake ninja-build gcc gfortran pkg-config libhwloc-dev libopenmpi-dev openmpi-bin libmpich-dev mpich
  g++ libsimgrid-dev python3 python3-pip libbz2-dev bzip2 libzstd-dev zstd libfftw3-dev libfftw3-mpi-dev petsc-dev"

ensure_packages() {
  local missing=()
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "== installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing packages; run:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

# The MPI Forum's description of MPI, for scripts/gen_app_world.py (its --check is a test), from PyPI
# into .cache/python (not a system package: Debian has none).
ensure_pympistandard() {
  [ -d "$TOP/.cache/python/pympistandard" ] && return 0
  echo "== installing pympistandard 0.2.0 into .cache/python"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --target "$TOP/.cache/python" pympistandard==0.2.0 ||
    echo "pympistandard could not be installed: check_generated_app_world is skipped" >&2
}

# Open MPI refuses root without these, and more ranks than cores without oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# build <name> <openmpi|mpich|smpi> [extra cmake args...]: configures and builds $TOP/build-<name>
# (smpi: SimGrid's smpicc and smpirun, TANDEM_SMPI).
build() {
  local name=$1 mpi=$2
  shift 2
  local dir="$TOP/build-$name" preflags="" mpi_args
  [ "$mpi" = openmpi ] && preflags="--oversubscribe"
  if [ "$mpi" = smpi ]; then
    mpi_args=(-DTANDEM_SMPI=ON)
  else
    mpi_args=(-DMPI_C_COMPILER="mpicc.$mpi" -DMPI_Fortran_COMPILER="mpifort.$mpi"
      -DMPIEXEC_EXECUTABLE="/usr/bin/mpiexec.$mpi" -DTANDEM_MPIEXEC_PREFLAGS="$preflags")
  fi
  # called as dir=$(build ...), where set -e does not reach: failures return explicitly
  cmake -S "$TOP" -B "$dir" -G Ninja "${mpi_args[@]}" "$@" >/dev/null || return 1
  cmake --build "$dir" >/dev/null || return 1
  echo "$dir"
}
