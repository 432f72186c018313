#!/usr/bin/env bash
# Installs the Debian packages hetsched builds against. Idempotent: installs only what is
# missing, and needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang-14 libclang-rt-14-dev clang-format
  libyaml-dev libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  # results that may fail (core/expected.hpp): tl::expected, C++23's std::expected for C++20
  libexpected-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libpugixml-dev libglpk-dev coinor-libcbc-dev libeigen3-dev
  # the learned policy's trainer (src/training/): the PyTorch C++ API
  libtorch-dev
  # the learned run-time predictor (src/perf/regression_forest.cpp): gradient-boosted trees
  libxgboost-dev
  # local runtime: topology discovery, OpenCL loader + headers + PoCL (a real OpenCL device on
  # the CPU, used by tests and CI), OpenBLAS and LAPACKE for the CPU kernels, clinfo to inspect
  libhwloc-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libopenblas-dev liblapacke-dev clinfo
  # service: etcd's JSON gateway over libcurl; the loopback test cluster that `make test`
  # brings up (scripts/testbed/): Slurm (munge, slurmctld, slurmd, client tools, slurmrestd)
  # and a three-member etcd, plus curl for the testbed's readiness checks
  libcurl4-openssl-dev curl munge slurm-wlm slurm-client slurmrestd etcd-server etcd-client
  # service (`hetsched serve`, `hetsched kube-extender`): SQLite for durable state, cpp-httplib
  # for the REST API and the Kubernetes API client (its Debian build enables TLS and
  # compression, so its header needs OpenSSL, zlib and Brotli headers)
  libsqlite3-dev libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev
  # benchmark peer only (bench/starpu/run_starpu_bench.sh builds against it; never linked)
  libstarpu-dev
  # the HTML report's and the dashboard's tests: Debian's Chromium, driven headless by
  # playwright-core (web/package.json)
  chromium
)
# Node.js and npm install the chart library the report inlines (web/package-lock.json). A
# machine that has them from elsewhere (NodeSource's nodejs bundles npm) keeps its own.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "bootstrap: all ${#packages[@]} packages present"
else
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The npm packages, exactly as web/package-lock.json pins them; again only when they are not
# already there (a copy of the lock file in node_modules records what was installed).
web="$(cd "$(dirname "$0")/.." && pwd)/web"
if ! cmp -s "$web/package-lock.json" "$web/node_modules/.hetsched-installed-lock.json"; then
  echo "bootstrap: installing the npm packages of web/package-lock.json"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$web/package-lock.json" "$web/node_modules/.hetsched-installed-lock.json"
fi
