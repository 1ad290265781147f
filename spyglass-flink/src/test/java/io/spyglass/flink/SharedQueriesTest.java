package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Identical queries that start together share their work in the job: the filter evaluates them once
 * and sends their partial once per combiner subtask, naming them all; the combiner merges it into
 * each, and the queries that end with the same records get one reply message, which the reader
 * turns back into each query's own result (its own meta) and end. A copy that started later sees
 * only the records from its start, and one with another LIMIT has its own: results exactly as
 * without sharing.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class SharedQueriesTest {
  private static final OperatorSettings SETTINGS =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private static final String BQL = "SELECT * FROM STREAM(60000, TIME) WHERE id = 'x' LIMIT 2";

  /** The same query written otherwise: the same plan. */
  private static final String SAME = "select *  from STREAM(60000, TIME) where id = 'x' limit 2";

  private static final String LIMIT_3 = "SELECT * FROM STREAM(60000, TIME) WHERE id = 'x' LIMIT 3";

  private static byte[] query(String id, String bql, long receiveMs) {
    return ControlMessage.query(id, bql, receiveMs, "replies", "instance-1").toJson();
  }

  private static byte[] record(String id, int n) {
    return ("{\"id\":\"" + id + "\",\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * What one filter subtask of {@code subtasks} sends: queries a, b (and d, another LIMIT) before
   * any record, c after the first match.
   */
  private static List<FilterMessage> filtered(int subtasks, List<String> copies) throws Exception {
    return filtered(subtasks, copies, BQL);
  }

  private static List<FilterMessage> filtered(int subtasks, List<String> copies, String copyBql)
      throws Exception {
    List<FilterMessage> out = new ArrayList<>();
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(
            new FilterOperator(SETTINGS, List.of()), 128, subtasks, 0)) {
      f.open();
      long q = 0;
      for (String id : copies) {
        f.processElement(new StreamRecord<>(RecordBatch.query(query(id, copyBql, q), 0, q++)));
      }
      f.processElement(new StreamRecord<>(RecordBatch.query(query("b", SAME, 5), 0, q++)));
      f.processElement(new StreamRecord<>(RecordBatch.query(query("d", LIMIT_3, 6), 0, q++)));
      long offset = 1;
      f.processElement(new StreamRecord<>(RecordBatch.one(record("x", 1), 0, offset++, 1, 1)));
      f.processElement(new StreamRecord<>(RecordBatch.one(record("y", 2), 0, offset++, 1, 1)));
      f.processElement(new StreamRecord<>(RecordBatch.query(query("c", BQL, 7), 0, q++)));
      f.processElement(new StreamRecord<>(RecordBatch.one(record("x", 3), 0, offset++, 1, 1)));
      f.processElement(new StreamRecord<>(RecordBatch.one(record("x", 4), 0, offset++, 1, 1)));
      f.setProcessingTime(f.getProcessingTime() + 2 * SETTINGS.tickMs());
      for (Object o : f.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof FilterMessage m) {
          out.add(m);
        }
      }
    }
    return out;
  }

  /** Each query's replies, as the reader gets them, through one combiner subtask. */
  private static Map<String, List<Reply>> combined(List<FilterMessage> filtered, List<byte[]> sent)
      throws Exception {
    Map<String, List<Reply>> replies = new LinkedHashMap<>();
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
      for (Object o : h.getOutput()) {
        if (o instanceof StreamRecord<?> r
            && r.getValue() instanceof Outgoing out
            && "replies".equals(out.topic)) {
          sent.add(out.value);
          for (Reply reply : Reply.decodeAll(out.value)) {
            replies.computeIfAbsent(reply.queryId(), k -> new ArrayList<>()).add(reply);
          }
        }
      }
    }
    return replies;
  }

  private static List<Object> ns(List<Reply> replies) {
    List<Object> ns = new ArrayList<>();
    for (Reply r : replies) {
      if (r.kind() == Reply.Kind.RESULT) {
        r.result().records().forEach(rec -> ns.add(rec.get("n")));
      }
    }
    return ns;
  }

  private static List<Reply.Kind> kinds(List<Reply> replies) {
    return replies.stream().map(Reply::kind).toList();
  }

  @Test
  void identicalQueriesThatStartTogetherShareOnePartialAndOneReplyAndGetTheirOwnResults()
      throws Exception {
    List<FilterMessage> filtered = filtered(1, List.of("a"));

    List<FilterMessage> partials =
        filtered.stream().filter(m -> m.kind == FilterMessage.PARTIAL).toList();
    // a and b share each partial; c (later) and d (another LIMIT) have their own
    assertThat(partials)
        .filteredOn(m -> m.queryId.equals("a"))
        .allSatisfy(m -> assertThat(m.sharers).containsExactly("b"))
        .isNotEmpty();
    assertThat(partials).noneMatch(m -> m.queryId.equals("b"));
    assertThat(partials)
        .filteredOn(m -> m.queryId.equals("c") || m.queryId.equals("d"))
        .allSatisfy(m -> assertThat(m.sharers).isNull())
        .isNotEmpty();

    List<byte[]> sent = new ArrayList<>();
    Map<String, List<Reply>> replies = combined(filtered, sent);
    assertThat(ns(replies.get("a"))).containsExactly(1L, 3L);
    assertThat(ns(replies.get("b"))).containsExactly(1L, 3L);
    assertThat(ns(replies.get("c"))).as("only the records after its start").containsExactly(3L, 4L);
    assertThat(ns(replies.get("d"))).containsExactly(1L, 3L, 4L);
    for (String id : List.of("a", "b", "c", "d")) {
      List<Reply.Kind> k = kinds(replies.get(id));
      assertThat(k.subList(k.size() - 2, k.size()))
          .as(id)
          .containsExactly(Reply.Kind.RESULT, Reply.Kind.ENDED);
    }
    // each its own meta: its id, its text and its receive time
    Reply a = result(replies.get("a"));
    Reply b = result(replies.get("b"));
    assertThat(a.result().meta().queryText()).isEqualTo(BQL);
    assertThat(b.result().meta().queryText()).isEqualTo(SAME);
    assertThat(a.result().meta().receiveTimeMs()).isZero();
    assertThat(b.result().meta().receiveTimeMs()).isEqualTo(5);
    assertThat(b.result().meta().queryId()).isEqualTo("b");
    // a's and b's results and ends travelled as one message
    assertThat(sent).filteredOn(v -> v[4] == Reply.SHARED_VERSION).hasSize(1);
  }

  @Test
  void copiesOfALongQueryGoInSeveralMessagesThatKafkaTakes() throws Exception {
    String pad = "p".repeat(4_000);
    String longBql =
        "SELECT * FROM STREAM(60000, TIME) WHERE id = 'x' OR id = '" + pad + "' LIMIT 2";
    List<String> copies = new ArrayList<>();
    // as many as the settings' 100 queries take, besides b and d
    for (int i = 0; i < 95; i++) {
      copies.add("long-" + i);
    }
    List<byte[]> sent = new ArrayList<>();
    Map<String, List<Reply>> replies = combined(filtered(1, copies, longBql), sent);
    for (String id : copies) {
      assertThat(ns(replies.get(id))).as(id).containsExactly(1L, 3L);
      List<Reply.Kind> k = kinds(replies.get(id));
      assertThat(k.get(k.size() - 1)).isEqualTo(Reply.Kind.ENDED);
    }
    List<byte[]> shared = sent.stream().filter(v -> v[4] == Reply.SHARED_VERSION).toList();
    assertThat(shared).hasSizeGreaterThan(3);
    assertThat(shared).allSatisfy(v -> assertThat(v.length).isLessThan(512 * 1024));
  }

  private static Reply result(List<Reply> replies) {
    return replies.stream().filter(r -> r.kind() == Reply.Kind.RESULT).findFirst().orElseThrow();
  }

  @Test
  void aSharedPartialGoesOnceToEachCombinerSubtaskNamingTheQueriesCombinedThere() throws Exception {
    List<String> copies = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      copies.add("copy-" + i);
    }
    List<FilterMessage> filtered = filtered(2, copies);
    // the first partial of the copies (and b): one message per combiner subtask
    List<FilterMessage> first = new ArrayList<>();
    for (FilterMessage m : filtered) {
      if (m.kind == FilterMessage.PARTIAL && (m.queryId.startsWith("copy-") || m.sharers != null)) {
        first.add(m);
        if (first.size() == 2) {
          break;
        }
      }
    }
    assertThat(first).hasSize(2);
    Set<String> named = new HashSet<>();
    Set<Integer> combiners = new HashSet<>();
    for (FilterMessage m : first) {
      List<String> ids = new ArrayList<>(List.of(m.queryId));
      if (m.sharers != null) {
        ids.addAll(Arrays.asList(m.sharers));
      }
      Set<Integer> where = new HashSet<>();
      for (String id : ids) {
        where.add(KeyGroupRangeAssignment.assignKeyToParallelOperator(id, 128, 2));
      }
      assertThat(where).as("one combiner subtask per message").hasSize(1);
      combiners.addAll(where);
      named.addAll(ids);
    }
    assertThat(combiners).containsExactlyInAnyOrder(0, 1);
    List<String> all = new ArrayList<>(copies);
    all.add("b");
    assertThat(named).containsExactlyInAnyOrderElementsOf(all);
  }
}
