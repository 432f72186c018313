#!/usr/bin/env bash
# A real Slurm cluster on loopback for the integration tests and for trying `hetsched serve`:
# munged with its own key and socket, slurmctld and three slurmd on one host (`slurmd -N`),
# each node on its own port, with typed GPU GRES and a TPU GRES. Everything lives in DIR.
#
#   scripts/testbed/slurm.sh up DIR      start (restarts from scratch if already up)
#   scripts/testbed/slurm.sh down DIR    stop every daemon by its PID; idempotent
#   scripts/testbed/slurm.sh env DIR     print the SLURM_CONF line for a shell
#
# Nodes: node1 gpu:h100:4, node2 gpu:a100:4, node3 tpu:v4:4; 16 CPUs and 64 GiB each.
# Ports: HETSCHED_TESTBED_SLURM_PORT (default 28817; `auto`: a free base, see ports.sh) for
# slurmctld, the next three for the slurmd of node1..node3; `up` records it in DIR/port.
# Needs root (slurmd starts jobs as their submitting user).
# Waits are bounded: readiness is polled against a deadline, never slept out.
set -euo pipefail

usage() { echo "usage: $0 up|down|env DIR" >&2; exit 2; }
(($# == 2)) || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"
base_port=$(testbed_port_base "$action" "$dir" "${HETSCHED_TESTBED_SLURM_PORT:-28817}" 4)
nodes=(node1 node2 node3)
deadline_seconds=${HETSCHED_TESTBED_DEADLINE:-30}
export SLURM_CONF=$dir/etc/slurm.conf

log() { echo "slurm testbed: $*" >&2; }

down() {
  local node
  for node in "${nodes[@]}"; do stop_pidfile "$dir/run/slurmd-$node.pid"; done
  stop_pidfile "$dir/run/slurmctld.pid"
  stop_pidfile "$dir/run/munged.pid"
}

# Polls "$@" until it succeeds or the deadline passes.
wait_for() {
  local what=$1
  shift
  local end=$((SECONDS + deadline_seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then
      log "$what not ready after ${deadline_seconds}s; logs in $dir/log"
      tail -n 20 "$dir"/log/*.log >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

write_config() {
  local host
  host=$(hostname -s)
  mkdir -p "$dir"/{etc,log,run,state,spool,dev,munge}
  {
    echo "# Written by scripts/testbed/slurm.sh; the loopback test cluster."
    echo "ClusterName=hetsched-testbed"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmctldPort=$base_port"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$dir/munge/munge.socket"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/run/slurmctld.daemon.pid"
    echo "SlurmdPidFile=$dir/run/slurmd-%n.daemon.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SwitchType=switch/none"
    echo "MpiDefault=none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SchedulerType=sched/backfill"
    echo "SchedulerParameters=sched_min_interval=0,sched_interval=1,bf_interval=1"
    # Ended jobs stay visible to squeue for an hour, so their end state is never missed.
    echo "MinJobAge=3600"
    # A node downed by an operator (or a test) stays down until resumed.
    echo "ReturnToService=1"
    echo "SlurmdParameters=config_overrides"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=300"
    echo "InactiveLimit=0"
    echo "KillWait=2"
    echo "GresTypes=gpu,tpu"
    echo "NodeName=node1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base_port + 1)) CPUs=16 RealMemory=65536 Gres=gpu:h100:4 State=UNKNOWN"
    echo "NodeName=node2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base_port + 2)) CPUs=16 RealMemory=65536 Gres=gpu:a100:4 State=UNKNOWN"
    echo "NodeName=node3 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base_port + 3)) CPUs=16 RealMemory=65536 Gres=tpu:v4:4 State=UNKNOWN"
    echo "PartitionName=batch Nodes=node1,node2,node3 Default=YES MaxTime=INFINITE State=UP"
  } >"$dir/etc/slurm.conf"
  # GPU GRES must name character devices: symlinks to /dev/null stand in for /dev/nvidia*.
  local i
  for i in 0 1 2 3; do
    ln -sfn /dev/null "$dir/dev/h100_$i"
    ln -sfn /dev/null "$dir/dev/a100_$i"
  done
  {
    echo "NodeName=node1 Name=gpu Type=h100 File=$dir/dev/h100_[0-3]"
    echo "NodeName=node2 Name=gpu Type=a100 File=$dir/dev/a100_[0-3]"
    echo "NodeName=node3 Name=tpu Type=v4 Count=4"
  } >"$dir/etc/gres.conf"
  echo "ConstrainCores=no" >"$dir/etc/cgroup.conf"
}

# Starts "$@" detached, its output in log $1's file, and records its PID in run/$1.pid.
start_daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$dir/log/$name.out" 2>&1 &
  echo $! >"$dir/run/$name.pid"
}

all_nodes_idle() {
  local states
  states=$(sinfo -h -N -o '%N %t' 2>/dev/null) || return 1
  [[ $(grep -c ' idle$' <<<"$states") -eq ${#nodes[@]} ]]
}

up() {
  down
  rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  write_config
  echo "$base_port" >"$dir/port"
  [[ $(id -u) -eq 0 ]] || { log "must run as root (slurmd starts jobs as their user)"; exit 1; }
  for tool in munged slurmctld slurmd sinfo scontrol; do
    command -v "$tool" >/dev/null || { log "$tool not found; run scripts/bootstrap.sh"; exit 1; }
  done

  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0700 "$dir/munge"
  chmod 0600 "$dir/munge/munge.key"
  start_daemon munged munged --foreground --force --socket="$dir/munge/munge.socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/run/munged.daemon.pid" \
    --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log"
  wait_for munged test -S "$dir/munge/munge.socket"

  start_daemon slurmctld slurmctld -D -i -f "$SLURM_CONF"
  wait_for slurmctld scontrol ping
  local node
  for node in "${nodes[@]}"; do
    mkdir -p "$dir/spool/$node"
    start_daemon "slurmd-$node" slurmd -D -N "$node" -f "$SLURM_CONF"
  done
  wait_for "three idle nodes" all_nodes_idle
  log "up in $dir (SLURM_CONF=$SLURM_CONF)"
}

case $action in
  up) up ;;
  down) down ;;
  env) echo "export SLURM_CONF=$SLURM_CONF" ;;
  *) usage ;;
esac
