#!/bin/sh
# tandem-pcompress round trip: a made-up file of ~1 MB (text and binary, not a whole number of blocks,
# blocks not a multiple of the ranks) compressed on N ranks, then restored by the reference tool
# (bzip2 -d, or zstd -d for --codec zstd) and compared byte for byte.
# usage: pcompress_roundtrip.sh DIR LAUNCHER... -- PCOMPRESS [its options]
set -e
dir=$1; shift
mkdir -p "$dir"
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
in="$dir/in.dat" out="$dir/out.cmp"
seq 1 90000 > "$in"                                   # compressible text
awk 'BEGIN { x = 7; for (i = 0; i < 60000; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", 32 + x % 90 } }' >> "$in"
codec=bzip2
case " $* " in *" --codec zstd "*) codec=zstd ;; esac
$launcher "$@" --in "$in" --out "$out" --block 70001
$codec -dc "$out" | cmp - "$in"
echo "round trip: $(wc -c < "$in") bytes restored by $codec -d"
