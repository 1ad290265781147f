#!/usr/bin/env bash
# Builds the benchmark jar and runs JMH benchmarks of the core, one JVM at a time.
#
#   spyglass-bench/run.sh [--no-build] [PATTERN...]   JMH benchmarks matching the patterns (all when none)
#   spyglass-bench/run.sh [--no-build] memory [N]     heap per idle query (IdleQueryMemory)
#
# PATTERN is a JMH include regex, e.g. IndexBench or 'AggregationBench.*'. JMH_OPTS replaces the run
# settings, sized for a 2-core machine: one fork, 3 warm-up and 5 measured iterations of 2 s each.
# JMH_EXTRA adds options, e.g. JMH_EXTRA='-prof gc' or JMH_EXTRA='-p shape=BULLET'.
# Results go to bench-results/ at the repository root (ignored by git): <time>-<label>.json (JMH),
# .csv (one row per score) and .txt (the console output).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

build=1
if [[ "${1:-}" == "--no-build" ]]; then
  build=0
  shift
fi
jar=spyglass-bench/target/spyglass-benchmarks.jar
if ((build)); then
  mvn -B -q -pl spyglass-bench -am package -DskipTests -Dspotless.check.skip=true
fi

mkdir -p bench-results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"

if [[ "${1:-}" == "memory" ]]; then
  shift
  out="bench-results/$stamp-memory.txt"
  java -Xms4g -Xmx4g -cp "$jar" \
    io.spyglass.bench.IdleQueryMemory "$@" | tee "$out"
  echo "results: $out"
  exit 0
fi

label="$(echo "${*:-all}" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-60)"
base="bench-results/$stamp-$label"
# shellcheck disable=SC2086 # the option strings are meant to be split
java -jar "$jar" ${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 2s} ${JMH_EXTRA:-} \
  -rf json -rff "$base.json" "$@" | tee "$base.txt"

if command -v python3 >/dev/null; then
  python3 - "$base.json" "$base.csv" <<'PY'
import csv, json, sys

with open(sys.argv[1]) as f:
    runs = json.load(f)
with open(sys.argv[2], "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["benchmark", "params", "metric", "score", "error", "unit"])
    for run in runs:
        params = ";".join(f"{k}={v}" for k, v in sorted(run.get("params", {}).items()))
        name = run["benchmark"].rsplit(".", 2)
        name = ".".join(name[-2:])
        metrics = [("primary", run["primaryMetric"])]
        metrics += sorted(run.get("secondaryMetrics", {}).items())
        for metric, m in metrics:
            out.writerow([name, params, metric, m["score"], m["scoreError"], m["scoreUnit"]])
PY
  echo "results: $base.json $base.csv $base.txt"
else
  echo "results: $base.json $base.txt"
fi
