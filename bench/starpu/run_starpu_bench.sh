#!/usr/bin/env bash
# Builds the StarPU peer programs of `hetsched bench runtime` against Debian's
# libstarpu (pkg-config starpu-1.3) in a temporary folder and runs them on this
# machine, printing "key value" lines. StarPU is a benchmark peer only: nothing of
# hetsched links it.
# Usage: run_starpu_bench.sh TASKS SIDE TILE CPU_WORKERS MIX_CHAINS MIX_SIZE GEMM_REPETITIONS
#        [OVERHEAD_REPETITIONS]
# Each overhead run is its own process (as each of ours is a fresh set of workers); every run
# is printed as starpu_overhead_us_per_task_<sched>_run_<i>, and hetsched takes the best.
set -euo pipefail
tasks=${1:-200000}
side=${2:-2048}
tile=${3:-256}
cpus=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=$(pkg-config --cflags --libs starpu-1.3)
blas=$(pkg-config --cflags --libs openblas)
cc -O2 -o "$work/overhead" "$here/starpu_overhead.c" $flags
cc -O2 -o "$work/gemm" "$here/starpu_gemm.c" $flags $blas
export STARPU_NCPU=$cpus STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SILENT=1
export STARPU_HOME="$work"  # StarPU's performance models live here for this run only
overhead_runs=${8:-1}
for sched in eager lws dmda; do
  for run in $(seq 1 "$overhead_runs"); do
    value=$(STARPU_SCHED=$sched "$work/overhead" "$tasks" | awk '{print $2}')
    echo "starpu_overhead_us_per_task_${sched}_run_$run $value"
  done
done
STARPU_SCHED=dmda "$work/gemm" "$side" "$tile" "${7:-3}"
# The CPU + OpenCL mix: hetsched's own OpenCL kernels, extracted from its source.
chains=${5:-8}
size=${6:-128}
sed -n '/R"CLC(/,/)CLC"/p' "$here/../../src/runtime/kernels/opencl_kernels.cpp" | sed '1d;$d' > "$work/kernels.cl"
cc -O2 -o "$work/mix" "$here/starpu_mix.c" $flags $blas -lOpenCL
STARPU_SCHED=dmda STARPU_NCPU=1 STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 "$work/mix" "$chains" "$size" "$work/kernels.cl"
