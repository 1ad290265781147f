#!/usr/bin/env bash
# Reruns the benchmarks and scenarios that docs/performance.md reports, keeps their raw results
# (CSV and JSON, with the commit, the CPU, the JDK and the load) in docs/bench-results/, and
# rewrites the generated tables of docs/performance.md and docs/scaling.md (the plan for 100
# machines, from the flink part's rates) from them. The load average is sampled every minute
# of the run (load.csv) and shown with the results: a run that shares its cores with other jobs
# gives lower absolute figures; the ratios within it compare runs alternated in pairs.
#
#   spyglass-bench/publish.sh           about 45 to 60 minutes on 2 cores, at most 6 GB of heap:
#                                       shorter JMH runs (query setup: parse and submit only, 3
#                                       shots, 2 cold forks), versus-bullet's large pool of 262,144
#                                       records (about 470 MB of JSON, far out of the CPU's caches);
#                                       the parts that carry the targets first, then the scenarios
#                                       while the time budget lasts (PUBLISH_BUDGET_MIN, default
#                                       50 minutes after the build): a part cut short or not started
#                                       is listed in parts.csv and its tables say "not measured"
#   spyglass-bench/publish.sh --full    everything, about two hours on 2 cores, no budget; needs
#                                       about 18 GB of memory for versus-bullet's pool of 1,000,000
#   spyglass-bench/publish.sh --quick   a few seconds per part, into a temporary folder and a copy
#                                       of the document: checks the tooling, measures nothing
#
# ONLY='jmh versus-bullet' runs some parts (jmh, memory and the scenario names): into a folder that
# holds a run, it measures those parts again and keeps the others' results (parts.csv says which
# parts were measured again, when, at which commit and under which load; their load in
# load-rerun.csv); into an empty one, the others' tables say "not measured". JMH_OPTS replaces the JMH settings; JMH_POOL the number
# of JSON records ParseBench and FromJsonBench cycle over (default 65,536: about 120 MB, out of the
# CPU's caches); VB_HEAP the heap of versus-bullet (default 6g, --full 16g) and VB_ARGS adds options
# to it (e.g. --pool-records 65536).
# A scenario this build does not have is skipped. The flink part starts a Kafka broker of its own
# (from the jars the build resolved) and runs the Flink job on a mini cluster: about 6 minutes;
# so does bullet-kafka (Bullet's tests 1 to 6 read from Kafka, embedded and on the job; docs/
# scaling.md's sizing of Bullet's test 6 comes from it): about 6 minutes more.
# The kafka-vs-file part (spyglass-bench/kafka-vs-file.sh) starts a broker too and reads 1,000,000
# records from a file and from Kafka, alternated: about 8 minutes.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

mode=default
case "${1:-}" in
  --quick) mode=quick ;;
  --full) mode=full ;;
  "") ;;
  *)
    echo "usage: spyglass-bench/publish.sh [--quick|--full]" >&2
    exit 2
    ;;
esac
# the parts that carry the targets first, then flink, bullet-kafka and kafka-vs-file (docs/
# scaling.md's plan and its sizing of Bullet's test 6 come from them)
parts="${ONLY:-jmh versus-bullet end-to-end memory flink bullet-kafka kafka-vs-file latency find query-scaling query-kinds raw-queries data-scaling pipeline metering service}"

quickflag=()
vb_args=()
kvf_args=()
budget_s=0
case "$mode" in
  quick)
    work="$(mktemp -d)"
    results="$work/bench-results"
    doc="$work/performance.md"
    cp docs/performance.md "$doc"
    scaling="$work/scaling.md"
    cp docs/scaling.md "$scaling"
    quickflag=(--quick)
    jmh_opts="${JMH_OPTS:--f 1 -wi 1 -w 100ms -i 1 -r 100ms}"
    jmh_pool="${JMH_POOL:-4096}"
    setup_opts="$jmh_opts"
    setup_benchmarks='QuerySetupBench'
    cold_forks=1
    memory_queries=500
    vb_heap="${VB_HEAP:-2g}"
    kvf_args=(--records 20000 --needles 200 --pairs 1 --warmup 1)
    ;;
  full)
    results="docs/bench-results"
    doc="docs/performance.md"
    scaling="docs/scaling.md"
    jmh_opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 2s}"
    jmh_pool="${JMH_POOL:-65536}"
    setup_opts="$jmh_opts"
    setup_benchmarks='QuerySetupBench'
    cold_forks=3
    memory_queries=10000
    vb_heap="${VB_HEAP:-16g}"
    ;;
  default)
    results="docs/bench-results"
    doc="docs/performance.md"
    scaling="docs/scaling.md"
    jmh_opts="${JMH_OPTS:--f 1 -wi 2 -w 1s -i 5 -r 1s}"
    jmh_pool="${JMH_POOL:-65536}"
    # a single shot sets up 10,000 queries: seconds each, many more on a loaded machine
    setup_opts="${JMH_OPTS:--f 1 -wi 2 -i 3}"
    setup_benchmarks='QuerySetupBench.(parse|submit)'
    cold_forks=2
    memory_queries=10000
    vb_heap="${VB_HEAP:-6g}"
    vb_args=(--pool-records 262144)
    budget_s=$((${PUBLISH_BUDGET_MIN:-50} * 60))
    ;;
esac

echo "publish: load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
echo "publish: building" >&2
mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl spyglass-cli,spyglass-bench -am

jar="spyglass-bench/target/spyglass-benchmarks.jar"
if [[ -n "${ONLY:-}" && -f "$results/run.json" && "$mode" != quick ]]; then
  # measure some parts again: their results are replaced, the others' kept, and parts.csv says
  # which parts were measured again, when, at which commit and under which load
  rerun="rerun $(date -u +%FT%TZ) at $(git rev-parse --short HEAD), load $(cut -d' ' -f1 /proc/loadavg)"
  for part in $ONLY; do
    case "$part" in
      jmh) rm -f "$results"/jmh*.json "$results"/jmh.txt ;;
      memory) rm -f "$results"/memory.* ;;
      *) rm -rf "${results:?}/$part" "$results/$part.txt" ;;
    esac
    if [[ -f "$results/parts.csv" ]]; then
      grep -v "^$part," "$results/parts.csv" >"$results/parts.csv.tmp" || true
      mv "$results/parts.csv.tmp" "$results/parts.csv"
    fi
  done
else
  rerun=""
  rm -rf "$results"
  mkdir -p "$results"
  ./spyglass bench report "${quickflag[@]}" --results "$results" \
    --begin "spyglass-bench/publish.sh${*:+ $*} (ONLY=${ONLY:-all})"
fi

# the 1-minute load average, every minute while the run lasts
load_csv="$results/load.csv"
if [[ -n "$rerun" ]]; then
  load_csv="$results/load-rerun.csv"
fi
(
  echo "time,load1,load5,load15"
  while true; do
    echo "$(date -u +%FT%TZ),$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ',')"
    sleep 60
  done
) >"$load_csv" 2>/dev/null &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT

scenarios=" $(./spyglass bench no-such-scenario 2>&1 | sed -n 's/^Unknown scenario no-such-scenario; one of //p' | tr -d ',' || true) "
started=$SECONDS
if [[ ! -f "$results/parts.csv" ]]; then
  echo "part,seconds,status" >"$results/parts.csv"
fi

# runs "$@" for one part (a command is cut short when the budget is spent); records how it went
run_part() {
  local part="$1" out="$2"
  shift 2
  local left=0 status=0 t0=$SECONDS
  if ((budget_s > 0)); then
    left=$((budget_s - (SECONDS - started)))
    if ((left < 60)); then
      echo "publish: $part not started: the time budget is spent" >&2
      echo "$part,0,not started (time budget)" >>"$results/parts.csv"
      return 0
    fi
  fi
  echo "publish: $part" >&2
  if ((left > 0)) && [[ "$(type -t "$1")" == file ]]; then
    timeout -k 30 "$left" "$@" | tee "$out" || status=$?
  else
    "$@" | tee "$out" || status=$?
  fi
  local how="done${rerun:+ ($rerun)}"
  if ((status == 124 || status == 137)); then
    how="cut short (time budget)"
  elif ((status != 0)); then
    how="failed (exit $status)"
  fi
  echo "publish: $part $how in $((SECONDS - t0)) s" >&2
  echo "$part,$((SECONDS - t0)),$how" >>"$results/parts.csv"
}

jmh() {
  # JSON bytes, cycled over a large pool (out of cache, as a stream's bytes are)
  # shellcheck disable=SC2086 # the option strings are meant to be split
  java -jar "$jar" $jmh_opts -jvmArgsAppend "-Xms2g -Xmx2g -Dspyglass.bench.pool=$jmh_pool" \
    -rf json -rff "$results/jmh-json.json" 'io.spyglass.bench.(Parse|FromJson)Bench'
  # setting up 10,000 queries
  # shellcheck disable=SC2086
  java -jar "$jar" $setup_opts -rf json -rff "$results/jmh-setup.json" \
    "io.spyglass.bench.$setup_benchmarks"
  # records built before the runs, cycled over 256 of them (in cache: the filter, not memory)
  # shellcheck disable=SC2086
  java -jar "$jar" $jmh_opts -rf json -rff "$results/jmh-records.json" \
    'io.spyglass.bench.(Filter|Index|Unindexed|Aggregation|ManyGroupBy|Merge)Bench'
  python3 - "$results" <<'EOF'
import json, os, sys
d = sys.argv[1]
runs = []
for name in ("jmh-json.json", "jmh-setup.json", "jmh-records.json"):
    with open(os.path.join(d, name)) as f:
        runs += json.load(f)
    os.remove(os.path.join(d, name))
with open(os.path.join(d, "jmh.json"), "w") as f:
    json.dump(runs, f, indent=2)
EOF
  # setting up 10,000 queries in a JVM that has done nothing yet (a command started with a file
  # of queries): single shots without warm-up, in fresh forks
  java -jar "$jar" -f "$cold_forks" -wi 0 -i 1 -rf json -rff "$results/jmh-cold.json" \
    "io.spyglass.bench.$setup_benchmarks"
}

for part in $parts; do
  case "$part" in
    jmh)
      run_part jmh "$results/jmh.txt" jmh
      ;;
    memory)
      run_part memory "$results/memory.txt" java -Xms4g -Xmx4g -cp "$jar" \
        io.spyglass.bench.IdleQueryMemory "$memory_queries" "$results/memory.csv"
      ;;
    kafka-vs-file)
      # the embedded engine from a file and from Kafka, like for like (a broker of its own)
      run_part kafka-vs-file "$results/kafka-vs-file.txt" \
        env KVF_RESULTS="$results/kafka-vs-file" spyglass-bench/kafka-vs-file.sh --no-build \
        "${kvf_args[@]}"
      ;;
    versus-bullet)
      # shellcheck disable=SC2086 # VB_ARGS is meant to be split
      run_part versus-bullet "$results/versus-bullet.txt" \
        env SPYGLASS_JAVA_OPTS="-Xmx$vb_heap ${SPYGLASS_JAVA_OPTS:-}" \
        ./spyglass bench versus-bullet "${quickflag[@]}" "${vb_args[@]}" ${VB_ARGS:-} \
        --out "$results/versus-bullet"
      ;;
    *)
      if [[ "$scenarios" != *" $part "* ]]; then
        echo "publish: $part skipped: no such scenario in this build" >&2
        echo "$part,0,absent from this build" >>"$results/parts.csv"
        continue
      fi
      run_part "$part" "$results/$part.txt" \
        env SPYGLASS_JAVA_OPTS="-Xmx4g ${SPYGLASS_JAVA_OPTS:-}" \
        ./spyglass bench "$part" "${quickflag[@]}" --out "$results/$part"
      ;;
  esac
done

kill "$sampler" 2>/dev/null || true
if [[ -z "$rerun" ]]; then
  ./spyglass bench report --results "$results" --end
fi
./spyglass bench report --results "$results" --doc "$doc"
./spyglass bench report --results "$results" --doc "$scaling"
echo "publish: results in $results; $doc and $scaling regenerated" >&2
