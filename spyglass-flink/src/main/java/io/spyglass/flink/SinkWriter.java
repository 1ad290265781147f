package io.spyglass.flink;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.sinks.QuerySinks;
import io.spyglass.sinks.SinkDocument;
import java.util.ArrayList;
import java.util.List;

/**
 * A query's Kafka sinks in the job: each result becomes the document of sinks ({@link
 * SinkDocument}, keyed by the query's id where it was submitted and its window), one message per
 * topic, sent through the job's Kafka sink with its replies, so that it is written exactly once
 * when the job delivers exactly once (the replies' transaction), at least once otherwise.
 *
 * <p>Confined to the combiner's thread; not kept in state (after a restore, a result without a
 * window that follows windows is numbered from 1 again).
 */
final class SinkWriter {
  private final ControlMessage.Sinks sinks;
  private final QuerySinks keys;

  private SinkWriter(ControlMessage.Sinks sinks) {
    this.sinks = sinks;
    this.keys = QuerySinks.keysOnly(sinks.queryId());
  }

  /** The writer of a query's sinks; null when it has none. */
  static SinkWriter of(ControlMessage message) {
    ControlMessage.Sinks s = message.sinks();
    return s == null || s.kafkaTopics().isEmpty() ? null : new SinkWriter(s);
  }

  /** The messages of one result: one per topic, keyed by the document's key. */
  List<Outgoing> messages(Result r) {
    SinkDocument doc = keys.document(r.meta(), SinkDocument.resultJson(r));
    List<Outgoing> out = new ArrayList<>(sinks.kafkaTopics().size());
    for (String topic : sinks.kafkaTopics()) {
      out.add(Outgoing.of(topic, doc.key(), null, doc.json()));
    }
    return out;
  }
}
