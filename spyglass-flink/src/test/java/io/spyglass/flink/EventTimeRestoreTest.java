package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.HOUR;
import static io.spyglass.flink.MeteringDocs.T0;
import static io.spyglass.flink.MeteringDocs.doc;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.Reply;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A run restored from a checkpoint decides what is late for an event-time window as the run that
 * saved the checkpoint did: the combiner closes the windows that the records before a barrier close
 * when the barrier passes, so the state saved never holds a window open that the first run went on
 * to close before its next record.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class EventTimeRestoreTest {
  @Test
  void aDocumentLateInTheFirstRunIsLateInTheRestoredRunToo() throws Exception {
    List<FilterMessage> sent =
        filtered(
            doc("o1", 5, T0 + 10 * 60_000L), // hour 0
            doc("o1", 1, T0 + 3 * HOUR + 7 * 60_000L), // hour 3: hours 0 to 1 are final after it
            doc("o1", 1000, T0 + 30 * 60_000L)); // for hour 0, read after that
    FilterMessage start = sent.get(0);
    FilterMessage hour0 = sent.get(1);
    FilterMessage hour3 = sent.get(2);
    FilterMessage late = sent.get(3);

    Map<String, String> delivered = new TreeMap<>();
    OperatorSubtaskState checkpoint;
    try (var first = CombinerHarness.combiner()) {
      first.open();
      first.processElement1(new StreamRecord<>(start));
      first.processElement1(new StreamRecord<>(hour0));
      first.processElement1(new StreamRecord<>(hour3));
      // a checkpoint's barrier after hour 3's document, before the wall clock's next tick
      first.prepareSnapshotPreBarrier(1);
      checkpoint = first.snapshot(1, 1);
      // the first run goes on: the tick, then the late document
      tick(first, 1_000);
      first.processElement1(new StreamRecord<>(late));
      tick(first, Long.MAX_VALUE);
      deliver(first, delivered);
    }
    assertThat(delivered)
        .containsEntry(String.format("window %08d", T0 / HOUR), "[{docs=1, org=o1, total=5.0}]")
        .containsEntry("late 1", "[]"); // dropped, beyond the lateness: counted

    // the job killed after the checkpoint: the next run reads the late document again
    try (var again = CombinerHarness.combiner()) {
      again.initializeState(checkpoint);
      again.open();
      again.processElement1(new StreamRecord<>(late));
      tick(again, Long.MAX_VALUE);
      deliver(again, delivered); // a window delivered again must hold the same records
    }
  }

  private static void tick(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h,
      long t)
      throws Exception {
    CombinerHarness.watermark(h, t);
  }

  /** Adds the harness's results to {@code delivered}, a window given again the same as before. */
  private static void deliver(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h,
      Map<String, String> delivered) {
    for (Reply reply : CombinerHarness.results(h)) {
      String key = MeteringDocs.key(reply.result());
      String value = MeteringDocs.describe(reply.result());
      String before = delivered.putIfAbsent(key, value);
      assertThat(value).as("%s delivered again", key).isEqualTo(before == null ? value : before);
    }
  }

  /** What one filter subtask sends for the metering query and each document, one by one. */
  private static List<FilterMessage> filtered(String... docs) throws Exception {
    List<FilterMessage> out = CombinerHarness.filtered("q", MeteringDocs.QUERY, docs);
    assertThat(out).hasSize(1 + docs.length);
    return out;
  }
}
