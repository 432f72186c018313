# Port bases and process teardown for the loopback testbed scripts (sourced by
# slurm.sh and etcd.sh).
#
# A script's port base comes from its environment variable: a number, or `auto` to pick
# a base in [20000, 30000) whose whole span of ports nothing listens on (the ctest
# fixture uses `auto`, so two test runs on one machine do not collide). `up` records
# the base in DIR/port; the other actions read it back from there, so they reach the
# daemons `up` started whatever the environment says now. The range stays below
# Linux's ephemeral ports (32768 and up), which outgoing connections take.

# testbed_port_free PORT: nothing accepts connections on 127.0.0.1:PORT.
testbed_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# testbed_pick_free_base SPAN: prints a base whose ports base..base+SPAN-1 are all free.
testbed_pick_free_base() {
  local span=$1 tries base port free
  for ((tries = 0; tries < 200; tries++)); do
    base=$((20000 + (RANDOM % 997) * 10))
    free=1
    for ((port = base; port < base + span; port++)); do
      testbed_port_free "$port" || { free=0; break; }
    done
    if ((free)); then
      echo "$base"
      return 0
    fi
  done
  echo "testbed: no free span of $span ports found in [20000, 30000)" >&2
  return 1
}

# testbed_port_base ACTION DIR REQUESTED SPAN: the base this run of a script uses.
testbed_port_base() {
  local action=$1 dir=$2 requested=$3 span=$4
  if [[ $action != up && -f $dir/port ]]; then
    cat "$dir/port"
    return 0
  fi
  if [[ $requested == auto ]]; then
    testbed_pick_free_base "$span"
  elif [[ $requested =~ ^[0-9]+$ ]] && ((requested >= 1024 && requested + span <= 65536)); then
    echo "$requested"
  else
    echo "testbed: port base '$requested' is neither 'auto' nor a number from 1024 up" >&2
    return 2
  fi
}

# stop_pidfile PIDFILE: stops the process whose PID it holds (TERM, then KILL after a
# bounded wait) and removes the file.
stop_pidfile() {
  local pidfile=$1 pid
  [[ -f $pidfile ]] || return 0
  pid=$(<"$pidfile")
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local end=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$pidfile"
}
