#!/usr/bin/env bash
# Reruns every benchmark and scenario that docs/performance.md reports, keeps their raw results
# (CSV and JSON, with the commit, the CPU, the JDK and the load) in docs/bench-results/, and
# rewrites the document's generated tables from them. Run it on an idle machine: the numbers of a
# run that shares its cores with other jobs are wrong (the load when it started is in the results).
#
#   spyglass-bench/publish.sh           everything, about two hours on 2 cores; needs about 18 GB
#                                       of memory for versus-bullet's pools of 1,000,000 records
#   spyglass-bench/publish.sh --quick   a few seconds per part, into a temporary folder and a copy
#                                       of the document: checks the tooling, measures nothing
#
# ONLY='jmh versus-bullet' runs some parts (jmh, memory and the scenario names); the others' results
# are then missing and their tables say so. JMH_OPTS replaces the JMH settings; VB_HEAP the heap of
# versus-bullet (default 16g) and VB_ARGS adds options to it (e.g. --pool-records 262144).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

quick=0
if [[ "${1:-}" == "--quick" ]]; then
  quick=1
fi
parts="${ONLY:-jmh memory versus-bullet end-to-end latency find raw-queries data-scaling query-scaling query-kinds pipeline metering service}"

if ((quick)); then
  work="$(mktemp -d)"
  results="$work/bench-results"
  doc="$work/performance.md"
  cp docs/performance.md "$doc"
  quickflag=(--quick)
  jmh_opts="${JMH_OPTS:--f 1 -wi 1 -w 100ms -i 1 -r 100ms}"
  cold_forks=1
  memory_queries=500
else
  results="docs/bench-results"
  doc="docs/performance.md"
  quickflag=()
  jmh_opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 2s}"
  cold_forks=3
  memory_queries=10000
fi

echo "publish: load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
echo "publish: building" >&2
mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl spyglass-cli,spyglass-bench -am

rm -rf "$results"
mkdir -p "$results"
jar="spyglass-bench/target/spyglass-benchmarks.jar"

./spyglass bench report "${quickflag[@]}" --results "$results" \
  --begin "spyglass-bench/publish.sh ${*:-} (ONLY=${ONLY:-all})"

for part in $parts; do
  echo "publish: $part" >&2
  case "$part" in
    jmh)
      # shellcheck disable=SC2086 # the option string is meant to be split
      java -jar "$jar" $jmh_opts -rf json -rff "$results/jmh.json" \
        'io.spyglass.bench.(Filter|Index|Unindexed|Aggregation|ManyGroupBy|Merge|Parse|FromJson|QuerySetup)Bench' \
        | tee "$results/jmh.txt"
      # setting up 10,000 queries in a JVM that has done nothing yet (a command started with a file
      # of queries): single shots without warm-up, three forks
      java -jar "$jar" -f "$cold_forks" -wi 0 -i 1 -rf json -rff "$results/jmh-cold.json" \
        'io.spyglass.bench.QuerySetupBench' | tee "$results/jmh-cold.txt"
      ;;
    memory)
      java -Xms4g -Xmx4g -cp "$jar" io.spyglass.bench.IdleQueryMemory \
        "$memory_queries" "$results/memory.csv" | tee "$results/memory.txt"
      ;;
    versus-bullet)
      SPYGLASS_JAVA_OPTS="-Xmx${VB_HEAP:-16g} ${SPYGLASS_JAVA_OPTS:-}" \
        ./spyglass bench versus-bullet "${quickflag[@]}" ${VB_ARGS:-} --out "$results/versus-bullet" \
        | tee "$results/versus-bullet.txt"
      ;;
    *)
      ./spyglass bench "$part" "${quickflag[@]}" --out "$results/$part" | tee "$results/$part.txt"
      ;;
  esac
done

./spyglass bench report --results "$results" --doc "$doc"
echo "publish: results in $results; $doc regenerated" >&2
