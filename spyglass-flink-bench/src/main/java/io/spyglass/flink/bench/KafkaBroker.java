package io.spyglass.flink.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * The Kafka broker a benchmark reads and writes: an existing one, or a single-node KRaft broker on
 * loopback that this starts in a process of its own and stops at {@link #close}. Its jars are those
 * the build resolved into the local Maven repository (module {@code spyglass-kafka-broker} lists
 * them), so the bench's jar carries none of them; its CPU time is its process's, apart from the
 * bench's.
 */
final class KafkaBroker implements AutoCloseable {
  /** The broker's class path, written by the build of {@code spyglass-kafka-broker}. */
  static final String CLASSPATH = "/io/spyglass/kafka/broker/classpath.txt";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  private final String bootstrap;
  private final Process process;
  private final Path dir;
  private final Thread stopOnExit;

  private KafkaBroker(String bootstrap, Process process, Path dir) {
    this.bootstrap = bootstrap;
    this.process = process;
    this.dir = dir;
    this.stopOnExit = process == null ? null : new Thread(this::stop, "spyglass-kafka-stop");
    if (stopOnExit != null) {
      Runtime.getRuntime().addShutdownHook(stopOnExit);
    }
  }

  /** A broker that runs already; closing it leaves it running. */
  static KafkaBroker existing(String bootstrap) {
    return new KafkaBroker(bootstrap, null, null);
  }

  /**
   * Starts a broker on loopback ports of its own, with a fresh data folder, and waits until it
   * answers.
   *
   * @throws IllegalStateException when its jars are not where the build found them, or it does not
   *     start; the message says what to do
   */
  static KafkaBroker start(Consumer<String> progress) throws IOException, InterruptedException {
    String classPath = classPath();
    Path dir = Files.createTempDirectory("spyglass-kafka-");
    int port = freePort();
    int controller = freePort();
    Path props = dir.resolve("server.properties");
    Files.writeString(
        props,
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controller,
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dir.resolve("data"),
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=4",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "transaction.state.log.num.partitions=4",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            ""),
        StandardCharsets.UTF_8);
    // a fresh storage of a fixed single-node quorum needs only its identity (the broker starts at
    // its latest metadata version): written here rather than by Kafka's format tool, a JVM of its
    // own that takes seconds to start on a busy machine
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(
        data.resolve("meta.properties"),
        "version=1\nnode.id=1\ncluster.id="
            + Uuid.randomUuid()
            + "\ndirectory.id="
            + Uuid.randomUuid()
            + "\n",
        StandardCharsets.UTF_8);
    progress.accept("starting a Kafka broker on 127.0.0.1:" + port + " (data in " + dir + ")");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = dir.resolve("kafka.log");
    Process broker =
        new ProcessBuilder(
                java, "-Xms256m", "-Xmx1g", "-cp", classPath, "kafka.Kafka", props.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    KafkaBroker b = new KafkaBroker("127.0.0.1:" + port, broker, dir);
    try {
      b.awaitReady(log);
    } catch (RuntimeException | InterruptedException e) {
      b.close();
      throw e;
    }
    return b;
  }

  String bootstrap() {
    return bootstrap;
  }

  /** Whether this started the broker (and {@link #cpuSeconds} can tell its CPU time). */
  boolean started() {
    return process != null;
  }

  /** CPU seconds the broker's process has used so far; NaN for a broker this did not start. */
  double cpuSeconds() {
    if (process == null) {
      return Double.NaN;
    }
    return process.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
  }

  private void awaitReady(Path log) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000))) {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "the Kafka broker stopped while starting:\n" + tail(log) + howToStartOne());
        }
        try {
          if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException e) {
          // not up yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the Kafka broker did not answer within "
                  + START_TIMEOUT.toSeconds()
                  + " s:\n"
                  + tail(log)
                  + howToStartOne());
        }
        Thread.sleep(200);
      }
    }
  }

  /** The broker's class path from the build, each jar checked. */
  static String classPath() throws IOException {
    String cp;
    try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH)) {
      if (in == null) {
        throw new IllegalStateException(
            "this build has no Kafka broker class path (" + CLASSPATH + ")." + howToStartOne());
      }
      cp = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
    List<String> missing = new ArrayList<>();
    for (String jar : cp.split(File.pathSeparator)) {
      if (!Files.isRegularFile(Path.of(jar))) {
        missing.add(jar);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "the Kafka broker's jars are not where the build found them ("
              + missing.size()
              + " missing, e.g. "
              + missing.get(0)
              + ")."
              + howToStartOne());
    }
    return cp;
  }

  /** What to do when this cannot start a broker. */
  static String howToStartOne() {
    return "\nspyglass bench flink starts a Kafka broker from the jars Maven resolved when it built"
        + " spyglass (spyglass-kafka-broker). Build again on this machine (./spyglass, or mvn -B"
        + " package -DskipTests -pl spyglass-cli -am), or start a broker yourself"
        + " (scripts/kafka-broker.sh starts one from Maven artifacts and prints its address) and"
        + " give it: spyglass bench flink --kafka HOST:PORT";
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops a broker this started and removes its data; leaves an existing one running. */
  @Override
  public void close() {
    if (process == null) {
      return;
    }
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(stopOnExit);
    } catch (IllegalStateException e) {
      // exiting already: the hook runs
    }
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder: the OS cleans it
    }
  }
}
