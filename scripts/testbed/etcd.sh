#!/usr/bin/env bash
# A three-member etcd cluster on loopback for the integration tests and for trying
# `hetsched serve --state etcd://...`. Everything (data, logs, PIDs) lives in DIR.
#
#   scripts/testbed/etcd.sh up DIR              start a fresh cluster (wipes DIR's data)
#   scripts/testbed/etcd.sh down DIR            stop every member by its PID; idempotent
#   scripts/testbed/etcd.sh stop-member DIR N   stop member N (1..3), keeping its data
#   scripts/testbed/etcd.sh start-member DIR N  restart member N into the running cluster
#   scripts/testbed/etcd.sh endpoints DIR       print host:port,host:port,host:port
#
# Ports: HETSCHED_TESTBED_ETCD_PORT (default 23791; `auto`: a free base, see ports.sh): client
# ports base..base+2, peer ports base+10..base+12; `up` records the base in DIR/port.
# Short heartbeat and election timeouts so a lost member is noticed fast.
# Waits are bounded: readiness is polled against a deadline, never slept out.
set -euo pipefail

usage() { echo "usage: $0 up|down|stop-member|start-member|endpoints DIR [N]" >&2; exit 2; }
(($# >= 2)) || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
member_arg=${3:-}
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"
base_port=$(testbed_port_base "$action" "$dir" "${HETSCHED_TESTBED_ETCD_PORT:-23791}" 13)
deadline_seconds=${HETSCHED_TESTBED_DEADLINE:-30}
members=(1 2 3)

log() { echo "etcd testbed: $*" >&2; }
client_port() { echo $((base_port + $1 - 1)); }
peer_port() { echo $((base_port + 10 + $1 - 1)); }

initial_cluster() {
  local m out=()
  for m in "${members[@]}"; do out+=("m$m=http://127.0.0.1:$(peer_port "$m")"); done
  local IFS=,
  echo "${out[*]}"
}

endpoints() {
  local m out=()
  for m in "${members[@]}"; do out+=("127.0.0.1:$(client_port "$m")"); done
  local IFS=,
  echo "${out[*]}"
}

member_healthy() {
  curl -sf --max-time 1 "http://127.0.0.1:$(client_port "$1")/health" | grep -q '"health":"true"'
}

wait_for() {
  local what=$1
  shift
  local end=$((SECONDS + deadline_seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then
      log "$what not ready after ${deadline_seconds}s; logs in $dir"
      tail -n 20 "$dir"/m*.log >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

# start_member N new|existing
start_member() {
  local m=$1 state=$2
  mkdir -p "$dir/data"
  setsid etcd --name "m$m" --data-dir "$dir/data/m$m" \
    --listen-client-urls "http://127.0.0.1:$(client_port "$m")" \
    --advertise-client-urls "http://127.0.0.1:$(client_port "$m")" \
    --listen-peer-urls "http://127.0.0.1:$(peer_port "$m")" \
    --initial-advertise-peer-urls "http://127.0.0.1:$(peer_port "$m")" \
    --initial-cluster "$(initial_cluster)" --initial-cluster-state "$state" \
    --initial-cluster-token hetsched-testbed \
    --heartbeat-interval 50 --election-timeout 500 --max-txn-ops 1024 \
    --logger zap --log-outputs "$dir/m$m.log" \
    </dev/null >>"$dir/m$m.out" 2>&1 &
  echo $! >"$dir/m$m.pid"
}

down() {
  local m
  for m in "${members[@]}"; do stop_pidfile "$dir/m$m.pid"; done
}

up() {
  down
  rm -rf "$dir/data" "$dir"/m*.log "$dir"/m*.out
  command -v etcd >/dev/null || { log "etcd not found; run scripts/bootstrap.sh"; exit 1; }
  command -v curl >/dev/null || { log "curl not found; run scripts/bootstrap.sh"; exit 1; }
  echo "$base_port" >"$dir/port"
  local m
  for m in "${members[@]}"; do start_member "$m" new; done
  for m in "${members[@]}"; do wait_for "etcd member m$m" member_healthy "$m"; done
  endpoints >"$dir/endpoints"
  log "up in $dir, endpoints $(endpoints)"
}

check_member() {
  [[ $member_arg =~ ^[1-3]$ ]] || { log "member must be 1, 2 or 3"; exit 2; }
}

case $action in
  up) up ;;
  down) down ;;
  stop-member) check_member; stop_pidfile "$dir/m$member_arg.pid" ;;
  start-member)
    check_member
    stop_pidfile "$dir/m$member_arg.pid"
    start_member "$member_arg" existing
    wait_for "etcd member m$member_arg" member_healthy "$member_arg"
    ;;
  endpoints) endpoints ;;
  *) usage ;;
esac
