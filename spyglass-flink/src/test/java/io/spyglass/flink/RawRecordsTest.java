package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partials;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.record.RawJson;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The records a {@code SELECT *} matches cross the job as the JSON bytes the filter read: in the
 * partial (format 2), the combiner's state and the reply (version 3), never decoded on the way, nor
 * by the reader until something reads their fields; and the reader writes them as the same text as
 * the embedded engine, which keeps the filter's record and writes it out, for the same records:
 * compact ones copied, others (spaces, escapes, numbers written otherwise, a name twice) decoded
 * and written as decoding them gives, the virtual fields in their places.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class RawRecordsTest {
  private static final OperatorSettings SETTINGS =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, true);

  private static final String ID = "q";

  private static final String BQL =
      "SELECT * FROM STREAM(60000, TIME) WHERE kind = 'hit' OR kind = 'héllo' LIMIT 10";

  private static final String[] RECORDS = {
    "{\"kind\":\"hit\",\"n\":-12,\"d\":17.54,\"o\":{\"a\":[1,true,null,\"é\"]},\"z\":false}",
    "{\"kind\":\"miss\",\"n\":1}",
    "{\"kind\" : \"hit\", \"s\" : [ 1, 2 ]}",
    "{\"kind\":\"h\\u0069t\",\"t\":\"a\\nb\"}",
    "{\"n\":1.50,\"kind\":\"hit\",\"b\":1e3,\"c\":-0,\"d\":123456789012345678901234567890}",
    "{\"kind\":\"héllo\",\"kind\":\"hit\",\"_read_ms\":\"theirs\"}",
    "{\"kind\":\"hit\",\"u\":\"\\ud83d\\ude00 \\ud800\"}"
  };

  @Test
  void matchedRecordsTravelAsTheirJsonAndAreWrittenAsTheEmbeddedEngineWritesThem()
      throws Exception {
    List<FilterMessage> filtered = filtered();
    for (FilterMessage m : filtered) {
      if (m.kind == FilterMessage.PARTIAL) {
        assertThat(m.payload[4])
            .as("partial format")
            .isEqualTo((byte) Partials.JSON_FORMAT_VERSION);
      }
    }
    String partials = text(filtered);
    assertThat(partials).as("the JSON as read").contains(RECORDS[0], RECORDS[2], RECORDS[4]);

    Reply result = null;
    byte[] replyBytes = null;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        new KeyedTwoInputStreamOperatorTestHarness<>(
            new CombinerOperator(SETTINGS),
            new SpyglassJob.ByQuery(),
            new SpyglassJob.ByQuery(),
            BasicTypeInfo.STRING_TYPE_INFO)) {
      h.open();
      for (FilterMessage m : filtered) {
        h.processElement1(new StreamRecord<>(m));
      }
      h.processElement1(new StreamRecord<>(FilterMessage.of(FilterMessage.FINISH, ID, 0, 1, null)));
      for (Object o : h.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof Outgoing out) {
          Reply reply = Reply.decode(out.value);
          if (reply.kind() == Reply.Kind.RESULT) {
            result = reply;
            replyBytes = out.value;
          }
        }
      }
    }
    assertThat(result).isNotNull();
    assertThat(replyBytes[4]).as("reply version").isEqualTo((byte) Reply.VERSION);
    assertThat(new String(replyBytes, StandardCharsets.UTF_8)).contains(RECORDS[0], RECORDS[4]);
    List<Map<String, Object>> records = result.result().records();
    assertThat(records).hasSize(6);
    for (Map<String, Object> r : records) {
      assertThat(((RawJson) r).kept()).as("decoded by nobody yet").isNotNull();
    }
    assertThat(recordsJson(result.result())).isEqualTo(recordsJson(embedded()));
  }

  /** The records of a result as JSON, without its meta (times differ between runtimes). */
  private static String recordsJson(Result r) {
    String json = ResultJson.write(r);
    return json.substring(0, json.indexOf(",\"meta\":"));
  }

  /** What the embedded engine gives: its filter's records, kept by its combiner, written out. */
  private static Result embedded() {
    Query q = Query.parse(ID, BQL, QueryLimits.DEFAULTS, 0);
    List<Result> out = new ArrayList<>();
    QueryCombiner combiner =
        new QueryCombiner(q, QueryLimits.DEFAULTS, (x, r) -> out.add(r), () -> 0);
    FilterSet filters =
        new FilterSet(QueryLimits.DEFAULTS, () -> 0, (x, p) -> combiner.accept(p, 0));
    filters.virtualFields(
        Set.of(
            FilterOperator.READ_TIME,
            FilterOperator.KAFKA_PARTITION,
            FilterOperator.KAFKA_OFFSET,
            FilterOperator.KAFKA_TIMESTAMP));
    filters.add(q);
    Record record = new Record();
    long offset = 1;
    for (String json : RECORDS) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      try {
        if (filters.read(bytes, 0, bytes.length, record)) {
          record.putLong(FilterOperator.READ_TIME, 1);
          record.putLong(FilterOperator.KAFKA_PARTITION, 0);
          record.putLong(FilterOperator.KAFKA_OFFSET, offset);
          record.putLong(FilterOperator.KAFKA_TIMESTAMP, 1);
          filters.process(record);
        }
      } catch (Exception e) {
        throw new AssertionError(json, e);
      }
      offset++;
    }
    filters.endOfBatch();
    filters.flush();
    combiner.finish(10);
    return out.get(0);
  }

  /** What one filter subtask sends for the query and the records, one by one. */
  private static List<FilterMessage> filtered() throws Exception {
    List<FilterMessage> out = new ArrayList<>();
    byte[] query = ControlMessage.query(ID, BQL, 0, "r", "i").toJson();
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(new FilterOperator(SETTINGS, List.of()))) {
      f.open();
      f.processElement(new StreamRecord<>(RecordBatch.query(query, 0, 0)));
      long offset = 1;
      for (String r : RECORDS) {
        byte[] json = r.getBytes(StandardCharsets.UTF_8);
        f.processElement(new StreamRecord<>(RecordBatch.one(json, 0, offset++, 1, 1)));
        f.setProcessingTime(f.getProcessingTime() + 2 * SETTINGS.tickMs());
      }
      for (Object o : f.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof FilterMessage m) {
          if (m.kind == FilterMessage.START || m.kind == FilterMessage.PARTIAL) {
            out.add(m);
          }
        }
      }
    }
    assertThat(out).extracting(m -> m.kind).contains(FilterMessage.START, FilterMessage.PARTIAL);
    return out;
  }

  private static String text(List<FilterMessage> messages) {
    StringBuilder sb = new StringBuilder();
    for (FilterMessage m : messages) {
      if (m.kind == FilterMessage.PARTIAL) {
        sb.append(new String(m.payload, StandardCharsets.UTF_8)).append('\n');
      }
    }
    return sb.toString();
  }
}
