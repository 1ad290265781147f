package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.service.metering.Metering;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Documents written to a real broker's records topic once per id within the horizon: a repeat in
 * the request, after its answer, after a restart, and after a stop between the commit and its note
 * in the journal is not written again; one whose request was never committed is taken when sent
 * again; past the horizon an id is new again.
 */
class TopicIngestTest {
  static final long HORIZON = 60_000;

  @TempDir Path data;
  final AtomicLong now = new AtomicLong(1_767_225_600_000L);

  static List<Ingestor.Doc> docs(String... ids) {
    List<Ingestor.Doc> out = new ArrayList<>();
    for (String id : ids) {
      byte[] b = ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
      out.add(new Ingestor.Doc(id, b, 0, b.length));
    }
    return out;
  }

  IngestTopicWriter writer(String topic) throws Exception {
    return IngestTopicWriter.open(
        IngestTopicWriter.Settings.of(TestKafka.shared().bootstrap(), topic, topic));
  }

  TopicIngest open(IngestTopicWriter w) throws Exception {
    return TopicIngest.open(w, data, HORIZON, now::get);
  }

  static List<String> keys(String topic, int atLeast) {
    return TestKafka.shared().read(topic, atLeast + 1, Duration.ofSeconds(3)).stream()
        .map(r -> new String(r.key(), StandardCharsets.UTF_8))
        .sorted()
        .toList();
  }

  Path journalFile() throws Exception {
    try (Stream<Path> s = Files.list(data.resolve(IdJournal.DIR))) {
      return s.sorted().reduce((a, b) -> b).orElseThrow();
    }
  }

  @Test
  void aRepeatIsNotWrittenAgainWithinTheHorizonAcrossARestart() throws Exception {
    String topic = "ids-repeats";
    TestKafka.shared().createTopic(topic, 2);
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b", "a"))).isEqualTo(new Metering.Accepted(2, 1));
      assertThat(t.write(docs("b", "c"))).isEqualTo(new Metering.Accepted(1, 1));
    }
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b", "c"))).isEqualTo(new Metering.Accepted(0, 3));
      now.addAndGet(HORIZON + 1);
      assertThat(t.write(docs("a"))).as("past the horizon").isEqualTo(new Metering.Accepted(1, 0));
    }
    assertThat(keys(topic, 4)).containsExactly("a", "a", "b", "c");
  }

  /** The service stopped between a request's commit and its note: Kafka tells it was committed. */
  @Test
  void aRequestCommittedWhoseOutcomeIsNotInTheJournalIsLookedUp() throws Exception {
    String topic = "ids-unnoted";
    TestKafka.shared().createTopic(topic, 2);
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b"))).isEqualTo(new Metering.Accepted(2, 0));
    }
    Path file = journalFile();
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.truncate(Files.size(file) - 13); // the outcome, 13 bytes
    }
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b", "c"))).isEqualTo(new Metering.Accepted(1, 2));
    }
    assertThat(keys(topic, 3)).containsExactly("a", "b", "c");
  }

  /** The service stopped after the journal, before the commit: the request is new when resent. */
  @Test
  void aRequestNeverCommittedIsTakenWhenSentAgain() throws Exception {
    String topic = "ids-uncommitted";
    TestKafka.shared().createTopic(topic, 1);
    IngestTopicWriter stopped = writer(topic);
    try (TopicIngest t = open(stopped)) {
      assertThat(t.write(docs("a"))).isEqualTo(new Metering.Accepted(1, 0));
      IdJournal journal = t.journal();
      // as the process dies after its ids are forced and before the commit
      try {
        stopped.write(
            List.of(
                new IngestTopicWriter.Doc("b", "{\"id\":\"b\"}".getBytes(StandardCharsets.UTF_8))),
            (p, o) -> {
              long[] h = io.spyglass.engine.ingest.IdIndex.hash("b");
              journal.pending(
                  new IdJournal.Group(
                      journal.nextNumber(), p, o, now.get(), new long[] {h[0], h[1]}));
              throw new IllegalStateException("killed");
            });
      } catch (IllegalStateException expected) {
        // the transaction stays open
      }
    }
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b"))).isEqualTo(new Metering.Accepted(1, 1));
    } finally {
      stopped.close();
    }
    assertThat(keys(topic, 2)).containsExactly("a", "b");
  }
}
