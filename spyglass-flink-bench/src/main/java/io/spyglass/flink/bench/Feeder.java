package io.spyglass.flink.bench;

import io.spyglass.sources.EventGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code java -cp ... io.spyglass.flink.bench.Feeder BOOTSTRAP TOPIC PARTITIONS RATE BYTES}: sends
 * generated records of about BYTES to TOPIC at RATE records/s, over its partitions in turn, each
 * stamped with the time it is sent ({@code event_ts}), until its standard input closes; then prints
 * {@code sent N}. The live tests of {@code spyglass bench bullet-kafka} run it in a process of its
 * own, as Bullet's records came from other machines: the stream's producer is no more in the bench
 * process's CPU time than the broker is.
 */
public final class Feeder {
  private static final long SEED = 4242;

  private Feeder() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: Feeder BOOTSTRAP TOPIC PARTITIONS RATE BYTES");
      System.exit(2);
    }
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    long rate = Long.parseLong(args[3]);
    EventGenerator g = new EventGenerator(SEED, Integer.parseInt(args[4]));
    AtomicBoolean stopped = new AtomicBoolean();
    Thread stdin =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // until the bench closes the pipe, or exits
                }
              } catch (IOException e) {
                // the pipe is gone: stop as well
              }
              stopped.set(true);
            },
            "feeder-stdin");
    stdin.setDaemon(true);
    stdin.start();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                args[0],
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.ACKS_CONFIG,
                "1",
                ProducerConfig.LINGER_MS_CONFIG,
                2,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024))) {
      long start = System.currentTimeMillis();
      while (!stopped.get()) {
        long now = System.currentTimeMillis();
        long due = rate * (now - start) / 1000;
        for (; sent < due; sent++) {
          int len = g.next(now);
          producer.send(
              new ProducerRecord<>(
                  topic, (int) (sent % partitions), null, Arrays.copyOf(g.buffer(), len)));
        }
        Thread.sleep(1);
      }
      producer.flush();
    }
    System.out.println("sent " + sent);
  }

  /** A feeder process; {@link #close} stops it and returns how many records it sent. */
  static final class Running implements AutoCloseable {
    private final Process process;
    private final Path log;
    private long sent = -1;

    private Running(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    /** Starts a feeder on this process's class path and JVM. */
    static Running start(String bootstrap, String topic, int partitions, long rate, int bytes)
        throws IOException {
      Path log = Files.createTempFile("spyglass-feeder-", ".log");
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  Feeder.class.getName(),
                  bootstrap,
                  topic,
                  Integer.toString(partitions),
                  Long.toString(rate),
                  Integer.toString(bytes))
              .redirectError(log.toFile())
              .start();
      return new Running(p, log);
    }

    /** Whether the feeder still runs. */
    boolean alive() {
      return process.isAlive();
    }

    /**
     * Stops the feeder (closes its input) and waits for it.
     *
     * @return the records it sent
     * @throws IllegalStateException when it failed or did not stop; the message has its log's end
     */
    long stop() throws IOException, InterruptedException {
      if (sent >= 0) {
        return sent;
      }
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("the feeder did not stop within 60 s" + tail());
      }
      String out;
      try (InputStream in = process.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      for (String line : out.lines().toList()) {
        if (line.startsWith("sent ")) {
          sent = Long.parseLong(line.substring("sent ".length()).strip());
        }
      }
      if (process.exitValue() != 0 || sent < 0) {
        throw new IllegalStateException(
            "the feeder ended with exit code " + process.exitValue() + tail());
      }
      return sent;
    }

    private String tail() {
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return lines.isEmpty()
            ? ""
            : ":\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
      } catch (IOException e) {
        return "";
      }
    }

    /** Stops the feeder if it runs, and removes its log. */
    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroy();
        try {
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
          }
        } catch (InterruptedException e) {
          process.destroyForcibly();
          Thread.currentThread().interrupt();
        }
      }
      try {
        Files.deleteIfExists(log);
      } catch (IOException e) {
        // a temporary file: the OS cleans it
      }
    }
  }
}
