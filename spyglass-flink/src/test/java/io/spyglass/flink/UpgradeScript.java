package io.spyglass.flink;

import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.Mark;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.QueryTestDriver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * What the job of the savepoint in {@code savepoints/kafka-source-v0} read (the messages of its
 * topics, in order) and what a job of this version reads after restoring it: two windowed queries
 * on the clock of marks, four windows of records. The savepoint was made by the job as of commit
 * d5df762 (records and queries read by two of Flink's Kafka sources, the filter in a task of its
 * own), 2 subtasks, with this script: {@link #start}, the queries submitted and running, {@link
 * #before}, window 1 emitted, then {@code stop --savepoint} with window 2 half read.
 */
final class UpgradeScript {
  static final String RECORDS = "upgrade-records";
  static final String QUERIES = "upgrade-queries";
  static final String GROUP = "upgrade";
  static final String INSTANCE = "upgrade";
  static final long T0 = QueryTestDriver.START_MS;
  static final Map<String, String> BQL = new LinkedHashMap<>();

  static {
    BQL.put("count", "SELECT COUNT(*) AS n FROM STREAM(4000, TIME) WINDOWING TUMBLING(1000, TIME)");
    BQL.put(
        "groups",
        "SELECT k, SUM(v) AS s, COUNT(*) AS n FROM STREAM(4000, TIME) GROUP BY k"
            + " WINDOWING TUMBLING(1000, TIME)");
  }

  private UpgradeScript() {}

  /** The records of window w (1-based), each to partition i % 2. */
  static List<String> records(int w) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 10 + w; i++) {
      out.add("{\"k\": \"k" + (i % 3) + "\", \"v\": " + (w * 100 + i) + "}");
    }
    return out;
  }

  static String[] conf(String bootstrap) {
    return new String[] {
      "--kafka", bootstrap,
      "--records.topic", RECORDS,
      "--queries.topic", QUERIES,
      "--group", GROUP,
      "--records.start", "EARLIEST",
      "--queries.start", "COMMITTED",
      "--clock", "MARKS",
      "--records.virtual-fields", "false",
      "--checkpoint-ms", "200"
    };
  }

  static FlinkQueryClient client(String bootstrap) {
    return FlinkQueryClient.connect(
        FlinkQueryClient.Settings.of(bootstrap, INSTANCE)
            .withQueryTopic(QUERIES)
            .withClock(() -> T0));
  }

  /** The query messages, as a client sends them. */
  static Map<String, RemoteQuery> submit(FlinkQueryClient client) {
    Map<String, RemoteQuery> out = new LinkedHashMap<>();
    BQL.forEach((id, bql) -> out.put(id, client.submit(id, bql)));
    return out;
  }

  /** The first mark, at T0: queries received then start with it. */
  static void start(KafkaProducer<byte[], byte[]> p) {
    mark(p, T0);
  }

  /** Records before the savepoint: window 1, its end mark, half of window 2. */
  static void before(KafkaProducer<byte[], byte[]> p) {
    send(p, records(1), 0, 11, T0);
    mark(p, T0 + 1000);
    send(p, records(2), 0, 6, T0 + 1000);
  }

  /** The rest: the other half of window 2, windows 3 and 4, each with its end mark. */
  static void after(KafkaProducer<byte[], byte[]> p) {
    send(p, records(2), 6, 12, T0 + 1000);
    mark(p, T0 + 2000);
    send(p, records(3), 0, 13, T0 + 2000);
    mark(p, T0 + 3000);
    send(p, records(4), 0, 14, T0 + 3000);
    mark(p, T0 + 4000);
  }

  private static void send(
      KafkaProducer<byte[], byte[]> p, List<String> rs, int from, int to, long time) {
    for (int i = from; i < to; i++) {
      p.send(
          new ProducerRecord<>(
              RECORDS, i % 2, time, null, rs.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    p.flush();
  }

  private static void mark(KafkaProducer<byte[], byte[]> p, long time) {
    Mark m = Mark.clock(time);
    for (int partition = 0; partition < 2; partition++) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(RECORDS, partition, time, null, m.toJson());
      r.headers().add(new RecordHeader(Mark.HEADER, new byte[] {1}));
      p.send(r);
    }
    p.flush();
  }
}
