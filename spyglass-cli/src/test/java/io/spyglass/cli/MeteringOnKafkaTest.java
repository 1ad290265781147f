package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.service.metering.Metering;
import io.spyglass.testkit.kafka.TestKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code serve --runtime flink --kafka HOST:PORT --source http} in this process, on a real broker:
 * its parts take their time from the command's clock.
 */
class MeteringOnKafkaTest {
  @TempDir Path data;

  /** The machine's clocks, but for the records topic's writer, for which an hour passes a read. */
  static SpyglassClock anHourAReadForTheWriter() {
    SpyglassClock machine = SpyglassClock.system();
    long[] leap = {0};
    return new SpyglassClock(
        machine::millis,
        () -> {
          boolean writer =
              StackWalker.getInstance()
                  .walk(
                      s ->
                          s.anyMatch(
                              f -> f.getClassName().equals(IngestTopicWriter.class.getName())));
          if (!writer) {
            return machine.nanos();
          }
          synchronized (leap) {
            leap[0] += 3_600_000_000_000L;
            return machine.nanos() + leap[0];
          }
        });
  }

  /** Runs {@code serve} in this process with {@code clock}: its exit code and its stderr. */
  static Object[] serve(SpyglassClock clock, String... args) throws InterruptedException {
    ServeCommand command = new ServeCommand();
    command.clock = clock;
    StringWriter err = new StringWriter();
    AtomicInteger code = new AtomicInteger(-1);
    Thread t =
        new Thread(
            () ->
                code.set(
                    new CommandLine(command)
                        .setOut(new PrintWriter(new StringWriter(), true))
                        .setErr(new PrintWriter(err, true))
                        .execute(args)),
            "serve");
    t.setDaemon(true);
    t.start();
    t.join(120_000);
    return new Object[] {t.isAlive() ? "still serving" : code.get(), err.toString()};
  }

  /** {@code serve}'s arguments for the Kafka form on the topics and instance {@code name}. */
  private String[] kafkaForm(TestKafka kafka, String name) {
    return KafkaFormArgs.of(data, kafka.bootstrap(), name).toArray(String[]::new);
  }

  /**
   * A request whose outcome the id journal does not hold is looked up in the records topic at the
   * start, within the writer's timeout as the command's clock tells it: with a clock on which the
   * timeout is always over, the start stops saying so (on the machine's clock it would start).
   */
  @Test
  void theRecordsTopicWriterTakesItsTimeFromTheCommandsClock() throws Exception {
    String name = "writer-clock";
    TestKafka kafka = TestKafka.shared();
    kafka.createTopic(name + "-records", 1);
    kafka.createTopic(name + "-queries", 1);
    try (IngestTopicWriter w =
            IngestTopicWriter.open(
                IngestTopicWriter.Settings.of(kafka.bootstrap(), name + "-records", name));
        TopicIngest t = TopicIngest.open(w, data, 3_600_000, SpyglassClock.system()::millis)) {
      assertThat(t.write(TopicIngestTest.docs("a"))).isEqualTo(new Metering.Accepted(1, 0));
    }
    Path file;
    try (Stream<Path> s = Files.list(data.resolve(IdJournal.DIR))) {
      file = s.sorted().reduce((a, b) -> b).orElseThrow();
    }
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.truncate(Files.size(file) - 13); // the outcome, 13 bytes: the start looks it up
    }

    Object[] r = serve(anHourAReadForTheWriter(), kafkaForm(kafka, name));
    assertThat(r[0]).as((String) r[1]).isEqualTo(1);
    assertThat((String) r[1])
        .contains("did not tell within 10 s whether a request's documents")
        .contains(name + "-records-0 offset 0");
  }

  /**
   * The id journal deleted while the records topic holds documents of this instance within the
   * horizon: the start is refused, saying what to do, before anything is served.
   */
  @Test
  void aStartWithoutTheIdJournalOfDocumentsInTheTopicIsRefused() throws Exception {
    String name = "journal-lost";
    TestKafka kafka = TestKafka.shared();
    kafka.createTopic(name + "-records", 2);
    kafka.createTopic(name + "-queries", 1);
    try (IngestTopicWriter w =
            IngestTopicWriter.open(
                IngestTopicWriter.Settings.of(kafka.bootstrap(), name + "-records", name));
        TopicIngest t = TopicIngest.open(w, data, 3_600_000, SpyglassClock.system()::millis)) {
      assertThat(t.write(TopicIngestTest.docs("a", "b"))).isEqualTo(new Metering.Accepted(2, 0));
    }
    try (Stream<Path> s = Files.list(data.resolve(IdJournal.DIR))) {
      for (Path p : s.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(data.resolve(IdJournal.DIR));

    Object[] r = serve(SpyglassClock.system(), kafkaForm(kafka, name));
    assertThat(r[0]).as((String) r[1]).isEqualTo(1);
    assertThat((String) r[1])
        .contains("kafka-ids is missing or empty, yet the records topic holds 2 documents")
        .contains("--rebuild-kafka-ids");
    assertThat(data.resolve(IdJournal.DIR)).doesNotExist();
  }
}
