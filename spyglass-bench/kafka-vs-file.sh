#!/usr/bin/env bash
# The embedded engine reading the same records from a file and from Kafka, alternated in one
# process: records per CPU-second of the process (the broker in a process of its own, its CPU
# apart), and their ratio, pair by pair (io.spyglass.bench.KafkaVsFile).
#
#   spyglass-bench/kafka-vs-file.sh [--no-build] [OPTIONS]
#
# Builds the benchmark jar, starts a Kafka broker on loopback (scripts/kafka-broker.sh, on port
# SPYGLASS_KAFKA_PORT, default the first free one from 9641; or uses the one at KAFKA=HOST:PORT,
# whose CPU is then not known), generates 1,000,000 records of about 1,800 bytes with 10,000
# needles planted, writes them to a file (kept in target/kafka-vs-file/ for the next run) and
# produces them into a topic (a broker started here starts empty; one given with KAFKA keeps the
# topic for the next run), and runs 2 warm-up pairs then 3 measured pairs (file, then Kafka) with
# 10,000 needle queries on 2 workers: about 8 minutes on 2 busy cores. OPTIONS go to KafkaVsFile
# (--help lists them), e.g. --pairs 5, --jfr DIR (JFR profiles of each side's reads, summed into
# DIR/profile-SIDE.txt), --consumer KEY=VALUE (a Kafka consumer setting to try).
# The output goes to bench-results/<time>-kafka-vs-file.txt (.csv: every run; -table.csv: the
# pairs and their medians) at the repository root; with KVF_RESULTS=DIR, to DIR/runs.csv and
# DIR/kafka-vs-file.csv instead (as spyglass-bench/publish.sh runs it), the text on stdout only.
# JAVA_OPTS: options for the measuring JVM (default: none, as the spyglass command runs).
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
  mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl spyglass-bench -am
fi

work="$root/target/kafka-vs-file"
mkdir -p "$work" bench-results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
if [[ -n "${KVF_RESULTS:-}" ]]; then
  mkdir -p "$KVF_RESULTS"
  out="$work/last"
  csvs=(--csv "$KVF_RESULTS/runs.csv" --table "$KVF_RESULTS/kafka-vs-file.csv")
else
  out="bench-results/$stamp-kafka-vs-file"
  csvs=(--csv "$out.csv" --table "$out-table.csv")
fi

broker_args=()
broker=""
if [[ -n "${KAFKA:-}" ]]; then
  bootstrap="$KAFKA"
else
  # the first port from 9641 on where nothing listens, nor on the next (the controller's)
  port="${SPYGLASS_KAFKA_PORT:-}"
  if [[ -z "$port" ]]; then
    for p in $(seq 9641 2 9699); do
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
        ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
        port=$p
        break
      fi
    done
  elif (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "kafka-vs-file: something listens on 127.0.0.1:$port already" >&2
    exit 1
  fi
  if [[ -z "$port" ]]; then
    echo "kafka-vs-file: no free port pair between 9641 and 9700 for a broker" >&2
    exit 1
  fi
  bootstrap="127.0.0.1:$port"
  SPYGLASS_KAFKA_DIR="$work/broker" scripts/kafka-broker.sh "$port" >"$work/broker.log" 2>&1 &
  broker=$!
  trap 'kill "$broker" 2>/dev/null || true; wait "$broker" 2>/dev/null || true' EXIT
  trap 'exit 143' TERM INT
  # the script ends in exec java: its pid is the broker's
  broker_args=(--broker-pid "$broker")
  for _ in $(seq 1 180); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      break
    fi
    if ! kill -0 "$broker" 2>/dev/null; then
      echo "kafka-vs-file: the broker did not start; its log:" >&2
      tail -n 20 "$work/broker.log" >&2
      exit 1
    fi
    sleep 1
  done
fi

{
  echo "command: spyglass-bench/kafka-vs-file.sh $*"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "uptime: $(uptime)"
} | tee "$out.txt"
# shellcheck disable=SC2086 # the options are meant to be split
java ${JAVA_OPTS:-} -cp "$jar" io.spyglass.bench.KafkaVsFile --kafka "$bootstrap" \
  --dir "$work" "${csvs[@]}" "${broker_args[@]}" "$@" 2>&1 |
  grep -v -E '^SLF4J|^\[|^(WARN|INFO)' | tee -a "$out.txt"
echo "uptime: $(uptime)" | tee -a "$out.txt"
if [[ -z "${KVF_RESULTS:-}" ]]; then
  echo "results: $out.txt $out.csv $out-table.csv"
fi
