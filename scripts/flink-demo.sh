#!/usr/bin/env bash
# Spyglass on a standalone Flink cluster, end to end, on this machine's loopback and from Maven
# artifacts only (nothing is downloaded from anywhere else):
#   1. fetches the jars of a Kafka broker and of a Flink cluster with Maven (Maven Central),
#   2. builds the spyglass command and the job jar,
#   3. starts a single-node KRaft Kafka broker, a Flink JobManager and a TaskManager (2 slots),
#   4. submits the job with `flink run`, produces generated records into its records topic,
#   5. asks queries through `spyglass query --runtime flink --kafka` and through the HTTP API of
#      `spyglass serve --runtime flink --kafka`,
#   6. stops everything it started.
# Usage: scripts/flink-demo.sh            (work files under target/flink-demo; logs there too)
#        SPYGLASS_DEMO_KEEP=1 scripts/flink-demo.sh   leaves the cluster running until Enter
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${SPYGLASS_DEMO_DIR:-$root/target/flink-demo}"
pids=()

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cleanup() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[$i]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for_port() { # port, what, log
  for _ in $(seq 1 240); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "flink-demo: $2 did not open port $1; see $3" >&2
  tail -20 "$3" >&2 || true
  exit 1
}

mkdir -p "$work"
rm -rf "$work/flink-tmp"

say "Fetching the Kafka and Flink jars from Maven Central"
fetch() { # the pom of scripts/flink-demo, the folder of its jars
  if [ ! -d "$2" ]; then
    mvn -B -q -ntp -f "$root/scripts/flink-demo/$1.pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$2" -DincludeScope=runtime
  fi
}
fetch kafka "$work/kafka/lib" # where scripts/kafka-broker.sh looks for them
fetch flink "$work/flink-lib"

say "Building spyglass and the job jar"
(cd "$root" && mvn -B -q -ntp -DskipTests -Dspotless.check.skip=true package -pl spyglass-flink -am)
"$root/spyglass" --version >/dev/null
job_jar="$root/spyglass-flink/target/spyglass-flink-job.jar"

say "Starting a Kafka broker"
kafka_port=$(free_port)
SPYGLASS_KAFKA_DIR="$work/kafka" SPYGLASS_KAFKA_CONTROLLER_PORT=$(free_port) \
  "$root/scripts/kafka-broker.sh" "$kafka_port" >"$work/kafka.log" 2>&1 &
pids+=($!)
wait_for_port "$kafka_port" "Kafka" "$work/kafka.log"
kafka="127.0.0.1:$kafka_port"
kafka_cp="$work/kafka/lib/*"
for topic in "events 2" "spyglass-queries 1"; do
  set -- $topic
  java -cp "$kafka_cp" org.apache.kafka.tools.TopicCommand --bootstrap-server "$kafka" \
    --create --topic "$1" --partitions "$2" >>"$work/kafka-topics.log" 2>&1
done
echo "Kafka on $kafka, topics events (2 partitions) and spyglass-queries"

say "Starting a Flink cluster: a JobManager and a TaskManager with 2 slots"
rest_port=$(free_port)
rpc_port=$(free_port)
mkdir -p "$work/flink-conf" "$work/flink-tmp"
cat >"$work/flink-conf/config.yaml" <<EOF
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $rpc_port
jobmanager.bind-host: 127.0.0.1
jobmanager.memory.process.size: 700m
taskmanager.bind-host: 127.0.0.1
taskmanager.host: 127.0.0.1
taskmanager.numberOfTaskSlots: 2
# a TaskManager started without Flink's launch scripts needs its resources spelled out
taskmanager.cpu.cores: 2.0
taskmanager.memory.framework.heap.size: 128m
taskmanager.memory.task.heap.size: 512m
taskmanager.memory.managed.size: 64m
taskmanager.memory.framework.off-heap.size: 128m
taskmanager.memory.task.off-heap.size: 0m
taskmanager.memory.network.min: 64m
taskmanager.memory.network.max: 64m
taskmanager.memory.jvm-metaspace.size: 256m
taskmanager.memory.jvm-overhead.min: 192m
taskmanager.memory.jvm-overhead.max: 192m
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $rest_port
io.tmp.dirs: $work/flink-tmp
parallelism.default: 2
# a busy machine starts the RPC system slowly: Flink's 10 s default is too short there
pekko.startup-timeout: 90 s
pekko.ask.timeout: 60 s
EOF
cat >"$work/flink-conf/log4j.properties" <<'EOF'
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5level %c{1} - %msg%n
EOF
cp "$work/flink-conf/log4j.properties" "$work/flink-conf/log4j-cli.properties"
flink_cp="$work/flink-lib/*"
# what Flink's own launch scripts give every JVM of the cluster and the flink command
jvm_opens=()
for pkg in java.lang java.net java.io java.nio sun.nio.ch java.lang.reflect java.text java.time \
  java.util java.util.concurrent java.util.concurrent.atomic java.util.concurrent.locks; do
  jvm_opens+=("--add-opens=java.base/$pkg=ALL-UNNAMED")
done
flink_java=(java "${jvm_opens[@]}" -Dlog4j.configurationFile="$work/flink-conf/log4j.properties" -cp "$flink_cp")
"${flink_java[@]}" -Xmx500m org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint \
  --configDir "$work/flink-conf" >"$work/jobmanager.log" 2>&1 &
pids+=($!)
wait_for_port "$rest_port" "the Flink JobManager" "$work/jobmanager.log"
"${flink_java[@]}" -Xmx640m -XX:MaxDirectMemorySize=200m \
  org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$work/flink-conf" \
  >"$work/taskmanager.log" 2>&1 &
pids+=($!)
echo "Flink REST API and web of the JobManager on http://127.0.0.1:$rest_port"

say "Submitting the job: flink run -d spyglass-flink-job.jar"
FLINK_CONF_DIR="$work/flink-conf" "${flink_java[@]}" org.apache.flink.client.cli.CliFrontend \
  run -d "$job_jar" --spyglass.kafka "$kafka" --spyglass.records.topic events \
  | tee "$work/flink-run.log"
job_id=$(grep -o 'JobID [0-9a-f]*' "$work/flink-run.log" | awk '{print $2}')

say "Producing generated records into topic events (in the background)"
(
  for round in $(seq 1 30); do
    "$root/spyglass" generate --count 20000 --seed "$round" 2>/dev/null
  done
) | java -cp "$kafka_cp" org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$kafka" \
  --topic events >"$work/producer.log" 2>&1 &
pids+=($!)

say "spyglass query --runtime flink --kafka $kafka"
"$root/spyglass" query --runtime flink --kafka "$kafka" \
  'SELECT device, COUNT(*) AS n, AVG(duration) AS avgDuration FROM STREAM(6000, TIME) GROUP BY device WINDOWING TUMBLING(3000, TIME)'
"$root/spyglass" query --runtime flink --kafka "$kafka" --format json \
  'SELECT TOP(3, browser_name) AS n FROM STREAM(3000, TIME)'

say "spyglass serve --runtime flink --kafka $kafka, then its HTTP API"
serve_port=$(free_port)
"$root/spyglass" serve --runtime flink --kafka "$kafka" --port "$serve_port" \
  --data "$work/serve-data" >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=($serve_pid)
wait_for_port "$serve_port" "spyglass serve" "$work/serve.log"
echo "POST http://127.0.0.1:$serve_port/api/query"
curl -sS -H 'Content-Type: text/plain' \
  --data 'SELECT COUNT(*) AS n, COUNT(DISTINCT demographics.country) AS countries FROM STREAM(3000, TIME)' \
  "http://127.0.0.1:$serve_port/api/query"
echo
curl -sS "http://127.0.0.1:$serve_port/api/health"
echo

if [ -n "${SPYGLASS_DEMO_KEEP:-}" ]; then
  say "Running: Kafka $kafka, Flink http://127.0.0.1:$rest_port, serve http://127.0.0.1:$serve_port/"
  read -r -p "Enter stops everything. "
fi

say "Cancelling the job, then stopping everything else"
FLINK_CONF_DIR="$work/flink-conf" "${flink_java[@]}" org.apache.flink.client.cli.CliFrontend \
  cancel "$job_id" >/dev/null 2>&1 || true
echo "flink-demo: done (logs in $work)"
