package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  void deleteJournalFiles() throws Exception {
    try (Stream<Path> s = Files.list(data.resolve(IdJournal.DIR))) {
      for (Path p : s.toList()) {
        Files.delete(p);
      }
    }
  }

  /**
   * The journal emptied (or deleted) while the topic holds this instance's documents within the
   * horizon: the start is refused, changing nothing; with REBUILD their ids are read back from the
   * topic (into the journal, kept for the next start), with ACCEPT it goes on without them.
   */
  @Test
  void aLostJournalStopsTheStartOrIsReadBackFromTheTopic() throws Exception {
    String topic = "ids-lost";
    TestKafka.shared().createTopic(topic, 2);
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "b"))).isEqualTo(new Metering.Accepted(2, 0));
      assertThat(t.write(docs("c"))).isEqualTo(new Metering.Accepted(1, 0));
    }
    deleteJournalFiles();
    try (IngestTopicWriter w = writer(topic)) {
      assertThatThrownBy(() -> open(w))
          .isInstanceOf(java.io.IOException.class)
          .hasMessageContaining("is missing or empty, yet the records topic holds 3 documents")
          .hasMessageContaining("Restore")
          .hasMessageContaining("--rebuild-kafka-ids")
          .hasMessageContaining("--accept-missing-ids");
      assertThat(Files.list(data.resolve(IdJournal.DIR))).as("nothing written").isEmpty();
    }
    Files.delete(data.resolve(IdJournal.DIR));
    try (IngestTopicWriter w = writer(topic)) {
      assertThatThrownBy(() -> open(w)).hasMessageContaining("is missing or empty");
      assertThat(data.resolve(IdJournal.DIR)).doesNotExist();
      try (TopicIngest t =
          TopicIngest.open(w, data, HORIZON, now::get, TopicIngest.IfJournalLost.REBUILD)) {
        assertThat(t.write(docs("a", "b", "c", "d"))).isEqualTo(new Metering.Accepted(1, 3));
      }
    }
    // the rebuilt journal is the journal from then on
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a", "d", "e"))).isEqualTo(new Metering.Accepted(1, 2));
    }
    deleteJournalFiles();
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t =
            TopicIngest.open(w, data, HORIZON, now::get, TopicIngest.IfJournalLost.ACCEPT)) {
      assertThat(t.write(docs("a"))).as("counted again").isEqualTo(new Metering.Accepted(1, 0));
    }
    assertThat(keys(topic, 6)).containsExactly("a", "a", "b", "c", "d", "e");
  }

  /**
   * Read back are this instance's documents within the horizon only: those of another instance on
   * the same topic, and those older than the horizon, are no loss of this journal.
   */
  @Test
  void aLostJournalMissesOnlyThisInstancesDocumentsWithinTheHorizon() throws Exception {
    String topic = "ids-lost-others";
    TestKafka.shared().createTopic(topic, 1);
    try (IngestTopicWriter other =
            IngestTopicWriter.open(
                IngestTopicWriter.Settings.of(TestKafka.shared().bootstrap(), topic, "other"));
        TopicIngest t = TopicIngest.open(other, data.resolve("other"), HORIZON, now::get)) {
      assertThat(t.write(docs("x"))).isEqualTo(new Metering.Accepted(1, 0));
    }
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a"))).isEqualTo(new Metering.Accepted(1, 0));
    }
    deleteJournalFiles();
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t =
            TopicIngest.open(w, data, HORIZON, now::get, TopicIngest.IfJournalLost.REBUILD)) {
      assertThat(t.write(docs("a", "x"))).isEqualTo(new Metering.Accepted(1, 1));
    }
    deleteJournalFiles();
    // a year on: every document of the topic is older than the horizon
    now.addAndGet(366L * 24 * 3600 * 1000);
    try (IngestTopicWriter w = writer(topic);
        TopicIngest t = open(w)) {
      assertThat(t.write(docs("a"))).isEqualTo(new Metering.Accepted(1, 0));
    }
  }
}
