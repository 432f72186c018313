#!/usr/bin/env bash
# Tiled DGEMM, hetsched and StarPU alternated ROUNDS times on the same machine, one
# process per measurement: `hetsched run --dag gemm` (a single cold run, GFLOP/s from its
# wall_seconds) then StarPU's starpu_gemm.c under dmda (one calibration round, one timed).
# Usage (from the repository root): bench/starpu/compare_gemm.sh [ROUNDS] [SIDE] [TILE] [CPUS]
# HETSCHED=path/to/hetsched (default build/release/hetsched). Prints one line per measurement.
set -euo pipefail
rounds=${1:-4}
side=${2:-2048}
tile=${3:-256}
cpus=${4:-2}
bin=${HETSCHED:-build/release/hetsched}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/gemm" "$here/starpu_gemm.c" $(pkg-config --cflags --libs starpu-1.3) \
  $(pkg-config --cflags --libs openblas)
export STARPU_NCPU=$cpus STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1 STARPU_HOME="$work"
for round in $(seq 1 "$rounds"); do
  ours=$("$bin" run --dag gemm --tiles $((side / tile)) --tile-size "$tile" --cpu-workers "$cpus" \
    --no-opencl --format json 2>/dev/null |
    python3 -c "import json,sys; d=json.load(sys.stdin); s=$side; print(f\"{2*s**3/d['wall_seconds']/1e9:.2f} GFLOP/s, {d['steals']} steals\")")
  echo "round $round hetsched: $ours"
  echo "round $round starpu: $(STARPU_SCHED=dmda "$work/gemm" "$side" "$tile" 1 | grep -v _run_) load $(cut -d' ' -f1 /proc/loadavg)"
done
