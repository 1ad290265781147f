package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.flink.client.QueryStart;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.junit.jupiter.api.Test;

/**
 * A standing query placed among the documents ({@link QueryStart}) reaches the filter where it
 * starts, from a real broker: the documents acknowledged before its definition come before it,
 * those after it after, whichever of the query topic and the records topic the reader reads first;
 * a reader restored past the query passes its marks.
 */
class QueryStartFetchTest {
  private static int next;

  private record Topics(String records, String queries, QueryStart start) {}

  /** 20 documents a0..a19, the query "q", 20 documents b0..b19, over 2 partitions. */
  private static Topics written(String name) throws Exception {
    String records = name + "-" + (++next) + "-records";
    String queries = name + "-" + next + "-queries";
    TestKafka.shared().createTopic(records, 2);
    TestKafka.shared().createTopic(queries, 1);
    QueryStart start;
    try (IngestTopicWriter w =
        IngestTopicWriter.open(
            IngestTopicWriter.Settings.of(TestKafka.shared().bootstrap(), records, name))) {
      w.write(docs("a"));
      start =
          w.define(
              queries,
              "q",
              ControlMessage.query("q", "SELECT COUNT(*) FROM STREAM(1h, TIME)", 0, "r", null)
                  .toJson());
      w.write(docs("b"));
    }
    return new Topics(records, queries, start);
  }

  private static List<IngestTopicWriter.Doc> docs(String prefix) {
    List<IngestTopicWriter.Doc> out = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String id = prefix + i;
      out.add(
          new IngestTopicWriter.Doc(
              id, ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static KafkaInput.Settings settings(Topics t) {
    return new KafkaInput.Settings(
        TestKafka.shared().bootstrap(),
        t.records(),
        t.queries(),
        "query-start-test",
        JobOptions.Start.EARLIEST,
        JobOptions.Start.EARLIEST,
        0,
        true,
        false,
        10_000,
        Map.of());
  }

  /** Fetches until {@code done} holds of what was handed on ("a3", "b7", "Q"), or 60 s. */
  private static void fetch(InputFetcher f, List<String> events, Predicate<List<String>> done) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.test(events) && System.nanoTime() < deadline) {
      once(f, events);
    }
  }

  /** Fetches {@code n} times (each poll waits up to a second when nothing comes). */
  private static void rounds(InputFetcher f, List<String> events, int n) {
    for (int i = 0; i < n; i++) {
      once(f, events);
    }
  }

  private static void once(InputFetcher f, List<String> events) {
    RecordsWithSplitIds<InputFetcher.Fetched> got = f.fetch();
    while (got.nextSplit() != null) {
      InputFetcher.Fetched x;
      while ((x = got.nextRecordFromSplit()) != null) {
        if (x.kind == InputFetcher.Fetched.Kind.QUERY) {
          events.add("Q");
        } else if (x.kind == InputFetcher.Fetched.Kind.RECORDS) {
          RecordBatch b = x.batch;
          for (int i = 0; i < b.count; i++) {
            String json =
                new String(b.data, b.start(i), b.ends[i] - b.start(i), StandardCharsets.UTF_8);
            events.add(json.substring(7, json.length() - 2));
          }
        }
      }
    }
  }

  private static long count(List<String> events, String prefix) {
    return events.stream().filter(e -> e.startsWith(prefix)).count();
  }

  /** Every document before the query precedes it, every one after it follows it. */
  private static void inPlace(List<String> events) {
    int q = events.indexOf("Q");
    assertThat(q).as("the query was handed on: " + events).isGreaterThanOrEqualTo(0);
    assertThat(events.subList(0, q)).allMatch(e -> e.startsWith("a"));
    assertThat(events.subList(q + 1, events.size())).allMatch(e -> e.startsWith("b"));
    assertThat(count(events, "a")).isEqualTo(20);
    assertThat(count(events, "b")).isEqualTo(20);
  }

  @Test
  void theRecordsReadBeforeTheQueryTopicWaitAtTheQuerysMarks() throws Exception {
    Topics t = written("start-records-first");
    List<String> events = new ArrayList<>();
    try (InputFetcher f = new InputFetcher(settings(t), 0, 1)) {
      f.handleSplitsChanges(
          new SplitsAddition<>(
              List.of(
                  InputSplit.records(t.records(), 0, InputSplit.EARLIEST),
                  InputSplit.records(t.records(), 1, InputSplit.EARLIEST))));
      fetch(f, events, e -> count(e, "a") == 20);
      // no query topic read yet: both partitions wait at the marks
      rounds(f, events, 3);
      assertThat(count(events, "b")).isZero();
      f.handleSplitsChanges(
          new SplitsAddition<>(List.of(InputSplit.queries(t.queries(), Map.of(0, 0L), 0, 1))));
      fetch(f, events, e -> count(e, "b") == 20);
    }
    inPlace(events);
  }

  @Test
  void theQueryReadBeforeTheRecordsWaitsForEveryPartitionToReachItsMark() throws Exception {
    Topics t = written("start-query-first");
    List<String> events = new ArrayList<>();
    try (InputFetcher f = new InputFetcher(settings(t), 0, 1)) {
      f.handleSplitsChanges(
          new SplitsAddition<>(List.of(InputSplit.queries(t.queries(), Map.of(0, 0L), 0, 1))));
      rounds(f, events, 3); // the query topic read, its partitions not given yet: the query waits
      assertThat(events).isEmpty();
      f.handleSplitsChanges(
          new SplitsAddition<>(List.of(InputSplit.records(t.records(), 1, InputSplit.EARLIEST))));
      f.handleSplitsChanges(
          new SplitsAddition<>(List.of(InputSplit.records(t.records(), 0, InputSplit.EARLIEST))));
      fetch(f, events, e -> count(e, "b") == 20);
    }
    inPlace(events);
  }

  @Test
  void aReaderRestoredPastTheQueryPassesItsMarks() throws Exception {
    Topics t = written("start-restored");
    List<String> events = new ArrayList<>();
    try (InputFetcher f = new InputFetcher(settings(t), 0, 1)) {
      f.handleSplitsChanges(
          new SplitsAddition<>(
              List.of(
                  InputSplit.queries(t.queries(), Map.of(0, t.start().offset() + 1), 0, 1),
                  InputSplit.records(t.records(), 0, InputSplit.EARLIEST),
                  InputSplit.records(t.records(), 1, InputSplit.EARLIEST))));
      fetch(f, events, e -> count(e, "b") == 20);
    }
    assertThat(events).doesNotContain("Q");
    assertThat(count(events, "a")).isEqualTo(20);
  }

  /** A reader whose partitions start after the marks (a job started later) does not wait. */
  @Test
  void aReaderStartedAfterTheMarksHandsTheQueryOn() throws Exception {
    Topics t = written("start-after");
    List<String> events = new ArrayList<>();
    try (InputFetcher f = new InputFetcher(settings(t), 0, 1)) {
      f.handleSplitsChanges(
          new SplitsAddition<>(
              List.of(
                  InputSplit.records(t.records(), 0, InputSplit.LATEST),
                  InputSplit.records(t.records(), 1, InputSplit.LATEST),
                  InputSplit.queries(t.queries(), Map.of(0, 0L), 0, 1))));
      fetch(f, events, e -> e.contains("Q"));
    }
    assertThat(events).containsExactly("Q");
  }

  @Test
  void aReaderHoldsOnlyForItsOwnPartitions() throws Exception {
    Topics t = written("start-two-readers");
    List<String> events = new ArrayList<>();
    // reader 1 of 2 reads partition 1 only
    try (InputFetcher f = new InputFetcher(settings(t), 1, 2)) {
      f.handleSplitsChanges(
          new SplitsAddition<>(
              List.of(
                  InputSplit.queries(t.queries(), Map.of(0, 0L), 1, 2),
                  InputSplit.records(t.records(), 1, InputSplit.EARLIEST))));
      fetch(f, events, e -> e.contains("Q") && count(e, "b") > 0);
      rounds(f, events, 3);
    }
    int q = events.indexOf("Q");
    assertThat(q).isGreaterThanOrEqualTo(0);
    assertThat(events.subList(0, q)).allMatch(e -> e.startsWith("a"));
    assertThat(events.subList(q + 1, events.size())).allMatch(e -> e.startsWith("b"));
  }
}
