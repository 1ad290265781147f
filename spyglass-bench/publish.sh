#!/usr/bin/env bash
# Reruns the benchmarks and scenarios that docs/performance.md reports, keeps their raw results
# (CSV and JSON, with the commit, the CPU, the JDK and the load) in docs/bench-results/, and
# rewrites the generated tables and charts of docs/performance.md and docs/scaling.md (the plan for
# 100 machines, from the flink part's rates) from them.
#
#   spyglass-bench/publish.sh           the publication: about 50 to 62 minutes on 2 idle cores after the
#                                       build (budget 75 minutes), at most 6 GB of heap
#   spyglass-bench/publish.sh --full    more repetitions (longer probes, more search steps, every
#                                       worker count, JMH's longer runs, versus-bullet's pool of
#                                       1,000,000 records: about 18 GB), about two hours, no budget
#   spyglass-bench/publish.sh --quick   a few seconds per part, into a temporary folder and copies
#                                       of the documents: checks the tooling, measures nothing
#
# What is published, and when nothing is:
# - The seed scenarios run first (the published studies' experiments: Bullet's tests 1 to 7,
#   JStorm's, Abacus's, and the same on Kafka and the Flink job), then the rest (versus-bullet,
#   JMH, end to end, memory, Kafka against a file, the service).
# - Everything runs into a folder of its own (a temporary copy); docs/bench-results/ and the two
#   documents are replaced only at the end, when every part ran to its end, no part ran under load
#   and the documents have no block without data (`spyglass bench report --check`). Otherwise the
#   command says why and exits non-zero, and the committed results stay as they were.
# - The load bound: while each part runs, other-cpu.py samples the CPU time of every process that
#   is not this publication's (and the hypervisor's steal). A part during which others used more
#   than PUBLISH_MAX_OTHER_CORES cores on average (default 0.2: a tenth of this 2-core machine)
#   stops the publication: on 2 cores a part's wall-clock figures are the share of the cores it
#   got, and even its per-CPU-second figures move with what others do to the caches. Each part's
#   figure is in parts.csv and the run's table.
# - A publication names its commit: it refuses to start from a tree with uncommitted changes.
# - A part can be measured again alone: ONLY='jmh versus-bullet' measures those parts again into
#   a copy of docs/bench-results/ and keeps the others' results (parts.csv says which parts were
#   measured again, when, at which commit and under which load; their load in load-rerun.csv).
#
# The budget (default run, idle 2 cores; PUBLISH_BUDGET_MIN, default 75 minutes after the build).
# Durations from the idle runs in docs/bench-results/*.txt and parts.csv where a part ran there;
# for the scenarios never run whole, probes x (measured seconds + about 3.5 s of start, warm-up
# and collection each, as query-scaling.txt's 44 probes in 472 s under load show):
#   latency            20 s  100 queries after 10 s of warm-up (latency.txt: 15 s)
#   find               27 s  100 needle queries (find.txt: 25 s)
#   raw-queries       205 s  Bullet's 10 counts (0-800) x 13.5 s, then ~5 doubling past them
#   data-scaling      240 s  15 rate searches x ~2.5 probes of 3 s x 6.5 s (sizes at 2 workers,
#                            1.8 KiB at 1, generator, test 5's 680 queries)
#   query-scaling     400 s  15 latency points + 2 x ~7 count steps + 8 x 2 rate steps, x 6.5 s;
#                            2 target runs of 30 s; 3 rounds against a scan
#   query-kinds       285 s  6 kinds x ~7 count steps x 6.5 s
#   pipeline          145 s  22 unpaced probes x 6.5 s
#   metering           20 s  (metering.txt: 17 s)
#   metering-http     170 s  5 shapes (83 s at 0b3144d) + up to 7 paced steps of 10 s
#   bullet-kafka      315 s  (218 s idle at 0d537e1 with one read per runtime of tests 3-6; now
#                            three, alternated, the median taken)
#   flink             320 s  (264 s idle at 0d537e1; the latency probes now 10 s, not 3, at each
#                            of 8 points)
#   versus-bullet     540 s  8 workloads x 3 inputs x 3 pairs of 1 s (751 s at 5 pairs of 2 s),
#                            then 2 more JVMs of the 2 target comparisons from JSON, ~60 s each
#   jmh               394 s  (parts.csv, idle, at e20f677)
#   end-to-end         40 s  (parts.csv, idle)
#   memory             80 s  (117 s under load 21)
#   kafka-vs-file      90 s  (parts.csv, idle)
#   service           400 s  (397 s idle at 0d537e1: 6 parts)
#   total            3690 s  = 62 minutes, 13 minutes inside the 75-minute budget (the whole
#                            idle run at 0d537e1 took 50 minutes: most parts ran shorter than
#                            sized). A part that would
#                            start with less than a minute of budget left is not started, and one
#                            running when the budget ends is cut short: either leaves its blocks
#                            without data, and the publication is refused.
#
# JMH_OPTS replaces the JMH settings; JMH_POOL the number of JSON records ParseBench and
# FromJsonBench cycle over (default 65,536: about 120 MB, out of the CPU's caches); VB_HEAP the
# heap of versus-bullet (default 6g, --full 16g), VB_ARGS adds options to its first run (e.g.
# --pool-records 65536), VB_RUNS its runs in all (default 3). A scenario this build does not have
# is skipped (and its blocks refuse the publication). The flink and bullet-kafka parts start a Kafka
# broker of their own (from the jars the build resolved), and so does kafka-vs-file
# (spyglass-bench/kafka-vs-file.sh).
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
# the seed scenarios first (Bullet's tests, JStorm's, Abacus's; then the same from Kafka and on the
# Flink job, which docs/scaling.md's plan comes from), then the comparisons and benchmarks
seeds="latency find raw-queries data-scaling query-scaling query-kinds pipeline metering metering-http bullet-kafka flink"
extras="versus-bullet jmh end-to-end memory kafka-vs-file service"
parts="${ONLY:-$seeds $extras}"
max_other="${PUBLISH_MAX_OTHER_CORES:-0.2}"
vb_runs="${VB_RUNS:-3}"

if [[ "$mode" != quick && -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "publish: refused: the tree has uncommitted changes (git status); a publication names its" \
    "commit, so its figures must be that commit's: commit or stash them, then publish" >&2
  exit 2
fi

scenario_flag=()
vb_args=()
kvf_args=()
budget_s=0
jmh_java=()
case "$mode" in
  quick)
    scenario_flag=(--quick)
    # measures nothing: another JMH run on the machine (whose lock JMH takes) does not stop it
    jmh_java=(-Djmh.ignoreLock=true)
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
    scenario_flag=(--full)
    jmh_opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 2s}"
    jmh_pool="${JMH_POOL:-65536}"
    setup_opts="$jmh_opts"
    setup_benchmarks='QuerySetupBench'
    cold_forks=3
    memory_queries=10000
    vb_heap="${VB_HEAP:-16g}"
    ;;
  default)
    jmh_opts="${JMH_OPTS:--f 1 -wi 2 -w 1s -i 5 -r 1s}"
    jmh_pool="${JMH_POOL:-65536}"
    # a single shot sets up 10,000 queries: seconds each, many more on a loaded machine
    setup_opts="${JMH_OPTS:--f 1 -wi 2 -i 3}"
    setup_benchmarks='QuerySetupBench.(parse|submit)'
    cold_forks=2
    memory_queries=10000
    vb_heap="${VB_HEAP:-6g}"
    vb_args=(--pool-records 262144)
    budget_s=$((${PUBLISH_BUDGET_MIN:-75} * 60))
    ;;
esac

# the run goes to a folder of its own; the committed results are replaced only at the end
stage="$(mktemp -d "${TMPDIR:-/tmp}/spyglass-publish.XXXXXX")"
results="$stage/bench-results"
doc="$stage/performance.md"
scaling="$stage/scaling.md"
cp docs/performance.md "$doc"
cp docs/scaling.md "$scaling"

echo "publish: load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
echo "publish: building" >&2
mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl spyglass-bench-cli,spyglass-bench -am

# what each part writes into the results folder
outputs_of() {
  case "$1" in
    jmh) echo "jmh.json jmh-cold.json jmh.txt" ;;
    memory) echo "memory.csv memory.txt" ;;
    *) echo "$1 $1.txt" ;;
  esac
}
run_files="run.json parts.csv load.csv load-rerun.csv other-cpu.csv other-cpu-rerun.csv"

jar="spyglass-bench/target/spyglass-benchmarks.jar"
if [[ -n "${ONLY:-}" && -f docs/bench-results/run.json && "$mode" != quick ]]; then
  # measure some parts again: their results are replaced, the others' kept, and parts.csv says
  # which parts were measured again, when, at which commit and under which load
  rerun="rerun $(date -u +%FT%TZ) at $(git rev-parse --short HEAD), load $(cut -d' ' -f1 /proc/loadavg)"
  cp -r docs/bench-results "$results"
  for part in $ONLY; do
    for f in $(outputs_of "$part"); do
      rm -rf "${results:?}/$f"
    done
    if [[ -f "$results/parts.csv" ]]; then
      grep -v "^$part," "$results/parts.csv" >"$results/parts.csv.tmp" || true
      mv "$results/parts.csv.tmp" "$results/parts.csv"
    fi
  done
else
  rerun=""
  mkdir -p "$results"
  quickflag=()
  if [[ "$mode" == quick ]]; then
    quickflag=(--quick)
  fi
  ./spyglass bench report "${quickflag[@]}" --results "$results" \
    --begin "spyglass-bench/publish.sh${*:+ $*} (ONLY=${ONLY:-all})"
fi

# the 1-minute load average, every minute while the run lasts; the CPU of other processes
load_csv="$results/load.csv"
other_csv="$results/other-cpu.csv"
if [[ -n "$rerun" ]]; then
  load_csv="$results/load-rerun.csv"
  other_csv="$results/other-cpu-rerun.csv"
fi
(
  echo "time,load1,load5,load15"
  while true; do
    echo "$(date -u +%FT%TZ),$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ',')"
    sleep 60
  done
) >"$load_csv" 2>/dev/null &
sampler=$!
python3 spyglass-bench/other-cpu.py $$ "$other_csv" 2 &
monitor=$!
trap 'kill "$sampler" "$monitor" 2>/dev/null || true' EXIT

scenarios=" $(./spyglass bench no-such-scenario 2>&1 | sed -n 's/^Unknown scenario no-such-scenario; one of //p' | tr -d ',' || true) "
started=$SECONDS
if [[ ! -f "$results/parts.csv" ]]; then
  echo "part,seconds,status,other cores" >"$results/parts.csv"
fi

# the other processes' CPU-seconds so far (the monitor's last sample)
other_cpu() {
  tail -n 1 "$other_csv" 2>/dev/null | awk -F, 'NR == 1 && $2 ~ /^[0-9.]+$/ { print $2; exit } END { if (NR == 0) print 0 }'
}

refuse() {
  echo "publish: refused: $1" >&2
  echo "publish: nothing is published: docs/bench-results/, docs/performance.md and" \
    "docs/scaling.md are as they were; this run's results are in $stage" >&2
  exit "${2:-3}"
}

# runs "$@" for one part (a command is cut short when the budget is spent); records how it went
# and the cores other processes used meanwhile, and refuses the publication past the bound
run_part() {
  local part="$1" out="$2"
  shift 2
  local left=0 status=0 t0=$SECONDS other0 other1 cores
  if ((budget_s > 0)); then
    left=$((budget_s - (SECONDS - started)))
    if ((left < 60)); then
      echo "publish: $part not started: the time budget is spent" >&2
      echo "$part,0,not started (time budget)," >>"$results/parts.csv"
      return 0
    fi
  fi
  echo "publish: $part" >&2
  other0="$(other_cpu)"
  if ((left > 0)) && [[ "$(type -t "$1")" == file ]]; then
    timeout -k 30 "$left" "$@" | tee "$out" || status=$?
  else
    "$@" | tee "$out" || status=$?
  fi
  other1="$(other_cpu)"
  cores="$(awk -v a="$other0" -v b="$other1" -v s=$((SECONDS - t0)) 'BEGIN { printf "%.2f", (b - a) / (s > 0 ? s : 1) }')"
  local how="done${rerun:+ ($rerun)}"
  if ((status == 124 || status == 137)); then
    how="cut short (time budget)"
  elif ((status != 0)); then
    how="failed (exit $status)"
  fi
  echo "publish: $part $how in $((SECONDS - t0)) s; other processes used $cores cores meanwhile" >&2
  echo "$part,$((SECONDS - t0)),\"$how\",$cores" >>"$results/parts.csv"
  if [[ "$mode" != quick ]] && awk -v c="$cores" -v m="$max_other" 'BEGIN { exit !(c > m) }'; then
    refuse "while $part ran, other processes used $cores cores on average, more than the bound of $max_other (PUBLISH_MAX_OTHER_CORES): its figures would be the share of the cores it got. Publish on an idle machine (the parts already run can be kept out of a new run: ONLY='...')"
  fi
}

jmh() {
  # JSON bytes, cycled over a large pool (out of cache, as a stream's bytes are)
  # shellcheck disable=SC2086 # the option strings are meant to be split
  java "${jmh_java[@]}" -jar "$jar" $jmh_opts -jvmArgsAppend "-Xms2g -Xmx2g -Dspyglass.bench.pool=$jmh_pool" \
    -rf json -rff "$results/jmh-json.json" 'io.spyglass.bench.(Parse|FromJson)Bench'
  # setting up 10,000 queries
  # shellcheck disable=SC2086
  java "${jmh_java[@]}" -jar "$jar" $setup_opts -rf json -rff "$results/jmh-setup.json" \
    "io.spyglass.bench.$setup_benchmarks"
  # records built before the runs, cycled over 256 of them (in cache: the filter, not memory)
  # shellcheck disable=SC2086
  java "${jmh_java[@]}" -jar "$jar" $jmh_opts -rf json -rff "$results/jmh-records.json" \
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
  java "${jmh_java[@]}" -jar "$jar" -f "$cold_forks" -wi 0 -i 1 -rf json -rff "$results/jmh-cold.json" \
    "io.spyglass.bench.$setup_benchmarks"
}

# the whole comparison, then the two comparisons of the targets (from JSON) in more JVMs, so that
# their ratios are published from several runs with their spread
versus_bullet() {
  # shellcheck disable=SC2086 # VB_ARGS is meant to be split
  SPYGLASS_JAVA_OPTS="-Xmx$vb_heap ${SPYGLASS_JAVA_OPTS:-}" \
    ./spyglass bench versus-bullet "${scenario_flag[@]}" "${vb_args[@]}" ${VB_ARGS:-} \
    --out "$results/versus-bullet"
  local run
  for ((run = 2; run <= vb_runs; run++)); do
    SPYGLASS_JAVA_OPTS="-Xmx$vb_heap ${SPYGLASS_JAVA_OPTS:-}" \
      ./spyglass bench versus-bullet "${scenario_flag[@]}" --workloads needles,group-by \
      --inputs json --out "$results/versus-bullet/run-$run"
  done
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
      run_part versus-bullet "$results/versus-bullet.txt" versus_bullet
      ;;
    metering-http)
      # Abacus's test over HTTP: a real service, its clients POSTing batches of documents
      run_part metering-http "$results/metering-http.txt" \
        env SPYGLASS_JAVA_OPTS="-Xmx4g ${SPYGLASS_JAVA_OPTS:-}" \
        ./spyglass bench metering --http "${scenario_flag[@]}" --out "$results/metering-http"
      ;;
    *)
      if [[ "$scenarios" != *" $part "* ]]; then
        echo "publish: $part skipped: no such scenario in this build" >&2
        echo "$part,0,absent from this build," >>"$results/parts.csv"
        continue
      fi
      run_part "$part" "$results/$part.txt" \
        env SPYGLASS_JAVA_OPTS="-Xmx4g ${SPYGLASS_JAVA_OPTS:-}" \
        ./spyglass bench "$part" "${scenario_flag[@]}" --out "$results/$part"
      ;;
  esac
done

kill "$sampler" "$monitor" 2>/dev/null || true
if [[ -z "$rerun" ]]; then
  ./spyglass bench report --results "$results" --end
fi
./spyglass bench report --results "$results" --doc "$doc"
./spyglass bench report --results "$results" --doc "$scaling"

# every generated block must have its data and every image must be there
gaps=0
./spyglass bench report --check --doc "$doc" || gaps=1
./spyglass bench report --check --doc "$scaling" || gaps=1
if [[ "$mode" == quick ]]; then
  echo "publish: quick run in $stage (documents $doc and $scaling)" >&2
  if ((gaps)); then
    echo "publish: the tooling leaves generated blocks without data (above)" >&2
    exit 1
  fi
  exit 0
fi
if ((gaps)); then
  refuse "generated blocks have no data (above): every part must run to its end" 4
fi
unfinished="$(grep ',"\?\(cut short\|not started\|failed\|absent\)' "$results/parts.csv" | cut -d, -f1,3 | tr '\n' ';' || true)"
if [[ -n "$unfinished" ]]; then
  refuse "parts did not run to their end: $unfinished" 4
fi

# publish: the run's results replace the committed ones; files no part writes (profiles, notes)
# stay
if [[ -z "$rerun" ]]; then
  for f in docs/bench-results/*; do
    [[ -e "$f" ]] || continue
    name="$(basename "$f")"
    keep=1
    for part in $seeds $extras; do
      for o in $(outputs_of "$part"); do
        [[ "$name" == "$o" ]] && keep=0
      done
    done
    for o in $run_files; do
      [[ "$name" == "$o" ]] && keep=0
    done
    if ((keep)) && [[ ! -e "$results/$name" ]]; then
      cp -r "$f" "$results/"
    fi
  done
fi
rm -rf docs/bench-results
cp -r "$results" docs/bench-results
cp "$doc" docs/performance.md
cp "$scaling" docs/scaling.md
rm -rf "$stage"
echo "publish: published: results in docs/bench-results; docs/performance.md and docs/scaling.md regenerated" >&2
