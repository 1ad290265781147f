#!/usr/bin/env bash
# A single-node Kafka broker (KRaft: broker and controller in one process) on loopback, from Maven
# artifacts only: fetches the broker's jars with Maven (scripts/flink-demo/kafka.pom.xml), formats a
# fresh data folder and runs the broker in the foreground until Ctrl-C (or kill), e.g. for
#   java -jar spyglass-bench-cli/target/spyglass-bench.jar flink --kafka 127.0.0.1:9092
#   ./spyglass query --source 'kafka://127.0.0.1:9092/events?from=earliest' 'SELECT ...'
# Usage: scripts/kafka-broker.sh [PORT]   (default 9092; the controller listens on PORT+1)
#   SPYGLASS_KAFKA_DIR              its jars (lib/), data and logs (default target/kafka-broker)
#   SPYGLASS_KAFKA_CONTROLLER_PORT  the controller's port instead of PORT+1
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${1:-9092}"
controller="${SPYGLASS_KAFKA_CONTROLLER_PORT:-$((port + 1))}"
dir="${SPYGLASS_KAFKA_DIR:-$root/target/kafka-broker}"

mkdir -p "$dir"
if [ ! -d "$dir/lib" ]; then
  mvn -B -q -ntp -f "$root/scripts/flink-demo/kafka.pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$dir/lib" -DincludeScope=runtime
fi
rm -rf "$dir/data"
# one broker: every internal topic with one replica, or consumer groups never form
cat >"$dir/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPERTIES
cp="$dir/lib/*"
cluster_id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
java -cp "$cp" kafka.tools.StorageTool format --standalone -t "$cluster_id" \
  -c "$dir/server.properties" >"$dir/format.log" 2>&1
echo "kafka-broker: 127.0.0.1:$port (data in $dir/data); Ctrl-C stops it" >&2
exec java -Xmx1g -cp "$cp" kafka.Kafka "$dir/server.properties"
