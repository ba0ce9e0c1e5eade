#!/bin/sh
# tandem-fft3d through files: a first run writes the transform of its made-up input (--out), a second
# reads that file (--in), writes its own transform and checks it against FFTW's on the same file.
# usage: fft3d_file.sh DIR LAUNCHER... -- FFT3D --n NXxNYxNZ [its options]
set -e
dir=$1; shift
mkdir -p "$dir"
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
$launcher "$@" --out "$dir/first.raw"
$launcher "$@" --in "$dir/first.raw" --out "$dir/second.raw" --check
test "$(wc -c < "$dir/second.raw")" = "$(wc -c < "$dir/first.raw")"
