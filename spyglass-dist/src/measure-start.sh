#!/usr/bin/env bash
# Measures how long a release takes from bin/spyglass serve to the first answer of a query:
# unpacks the archive in a fresh folder, starts serve, polls GET /api/health, then POSTs
# /api/query of a query that ends with the first record, and prints the wall-clock times and the
# CPU time the JVM spent until then (all its threads, and the busiest ones). Each run starts anew;
# the CPU times say more than the wall-clock ones on a machine that other work keeps busy. A first
# serve has bin/spyglass-cds record the class-data archive in the background once it stopped (or
# started): the next run waits until that is done (the time waited is printed), so that runs 2 and
# later measure a start with the archive, as a service's later starts are.
# Usage: spyglass-dist/src/measure-start.sh [ARCHIVE [RUNS [PORT]]]
#   (default: the newest spyglass-dist/target/spyglass-*.tar.gz, 3 runs, port 9400);
#   SPYGLASS_JAVA_OPTS and JAVA_HOME reach bin/spyglass. Needs curl and Linux's /proc.
set -euo pipefail
dist="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
archive="${1:-$(ls -t "$dist"/target/spyglass-*.tar.gz | head -n 1)}"
runs="${2:-3}"
port="${3:-9400}"
command -v curl > /dev/null || {
  echo "measure-start: needs curl" >&2
  exit 1
}
work="$(mktemp -d "${TMPDIR:-/tmp}/spyglass-start.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
home="$(ls -d "$work"/spyglass-*)"
tck="$(getconf CLK_TCK)"
query='{"query": "SELECT * FROM STREAM(10s, TIME) LIMIT 1"}'

cpu_ms() { # utime + stime of /proc/PID/stat (or of a thread's), in ms; fails for one that ended
  local f
  f="$(sed 's/.*) //' "$1" 2> /dev/null)" && [ -n "$f" ] || return 1
  # shellcheck disable=SC2086
  set -- $f
  echo $(((${12} + ${13}) * 1000 / tck))
}

for run in $(seq 1 "$runs"); do
  rm -rf "$work/data"
  waited=0
  while [ -d "$home/lib/spyglass.jsa.lock" ] && [ "$waited" -lt 600 ]; do
    sleep 1
    waited=$((waited + 1))
  done
  [ "$waited" = 0 ] || echo "(waited $waited s for the class-data archive recorded in the background)"
  start="$(date +%s%N)"
  (cd "$work" && exec "$home/bin/spyglass" serve --port "$port" --data "$work/data") > "$work/serve.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/api/health" > /dev/null; do
    kill -0 "$pid" 2> /dev/null || {
      cat "$work/serve.log" >&2
      exit 1
    }
    sleep 0.01
  done
  healthy="$(date +%s%N)"
  curl -sf -H 'Content-Type: application/json' -d "$query" "http://127.0.0.1:$port/api/query" > /dev/null
  answered="$(date +%s%N)"
  total="$(cpu_ms "/proc/$pid/stat")"
  threads="$(for t in /proc/"$pid"/task/*; do
    ms="$(cpu_ms "$t/stat")" && name="$(cat "$t/comm" 2> /dev/null)" && echo "$ms ms $name"
  done | sort -rn | head -n 3 | paste -sd, - | sed 's/,/, /g')"
  kill -TERM "$pid"
  wait "$pid" || true
  echo "run $run: healthy after $(((healthy - start) / 1000000)) ms, first answer after $(((answered - start) / 1000000)) ms; CPU $total ms ($threads); load $(cut -d' ' -f1 /proc/loadavg)"
done
