package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.ValueCodec;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.RawJson;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The result topic's binary replies: every part of a result's metadata survives the trip. */
class ReplyTest {
  private static final String BQL =
      "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1000, EVENT_TIME(ts))";

  @Test
  void anEventTimeResultKeepsItsWholeMeta() {
    Result r =
        eventResult(
            -1,
            new Meta.EventWindow(0, true, 2, true),
            new Meta.EventTimeMeta(Optional.of(5L), Optional.of(5L), 7, 3));
    Reply back = Reply.decode(Reply.result("a:q", r).encode());
    assertThat(back.kind()).isEqualTo(Reply.Kind.RESULT);
    assertThat(back.result()).isEqualTo(r);
    assertThat(ResultJson.write(back.result()))
        .contains("\"endTime\":0,\"final\":true,\"late\":2,\"lateUpdate\":true")
        .contains("\"late\":7,\"eventTime\":{\"watermark\":5,\"maxTime\":5,\"withoutTime\":3}");
  }

  @Test
  void aLookAtOpenWindowsRoundTrips() {
    Result r =
        eventResult(
            -1,
            new Meta.EventWindow(1000, false, 0, false),
            new Meta.EventTimeMeta(Optional.of(5L), Optional.of(5L), 0, 1));
    Reply open = Reply.decode(Reply.open("a:q", r).encode());
    assertThat(open.kind()).isEqualTo(Reply.Kind.OPEN);
    assertThat(open.result()).isEqualTo(r);
    Reply.Progress p = new Reply.Progress(10, 4, 0, 1);
    Reply answer = Reply.decode(Reply.inspected("a:q", 17, p).encode());
    assertThat(answer.kind()).isEqualTo(Reply.Kind.INSPECTED);
    assertThat(answer.sync()).isEqualTo(17);
    assertThat(answer.progress()).isEqualTo(p);
    Reply saved = Reply.decode(Reply.saved("a:q", 123_456, p).encode());
    assertThat(saved.kind()).isEqualTo(Reply.Kind.SAVED);
    assertThat(saved.sync()).isEqualTo(123_456);
  }

  @Test
  void anEventTimeResultBeforeTheFirstEventTime() {
    Result r =
        new Result(
            List.of(),
            new Meta(
                "a:q",
                BQL,
                1_000,
                Optional.of(2_000L),
                Optional.empty(),
                Map.of(),
                List.of(),
                true,
                Map.of(),
                Optional.of(new Meta.EventTimeMeta(Optional.empty(), Optional.empty(), 0, 0))));
    assertThat(Reply.decode(Reply.result("a:q", r).encode()).result()).isEqualTo(r);
  }

  /** A reply of version 1 (without event-time parts), as jobs before version 2 write them. */
  @Test
  void readsVersionOne() {
    PartialWriter out = new PartialWriter();
    out.writeRaw(new byte[] {'S', 'G', 'R', 'P'}, 0, 4).writeByte(1).writeByte(1);
    out.writeString("a:q");
    out.writeVarInt(1);
    ValueCodec.write(out, Map.of("n", 3L));
    out.writeString("SELECT COUNT(*) AS n FROM STREAM(5000, TIME)").writeLong(1_000);
    out.writeBoolean(false);
    out.writeBoolean(true);
    out.writeVarLong(2).writeString("TUMBLING(1000, TIME)").writeLong(3_000).writeLong(2_000);
    out.writeVarLong(3);
    ValueCodec.write(out, Map.of());
    out.writeVarInt(0);
    out.writeBoolean(false);
    out.writeVarInt(1);
    out.writeString("malformedJson").writeVarLong(4);
    Result r = Reply.decode(out.toByteArray()).result();
    assertThat(r.records()).containsExactly(Map.of("n", 3L));
    assertThat(r.meta().window())
        .contains(new Meta.WindowMeta(2, "TUMBLING(1000, TIME)", 3_000, 2_000, 3));
    assertThat(r.meta().badInput()).containsEntry("malformedJson", 4L);
    assertThat(r.meta().eventTime()).isEmpty();
  }

  @Test
  void refusesAnUnknownVersion() {
    byte[] bytes = Reply.running("a:q").encode();
    bytes[4] = (byte) (Reply.SHARED_VERSION + 1);
    assertThatThrownBy(() -> Reply.decode(bytes))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("supported: 1 to " + Reply.SHARED_VERSION);
  }

  /**
   * Queries that ended together with the same records: one message, the records once, each query
   * its own result (its meta) then its end, in order; {@link Reply#decode} refuses it.
   */
  @Test
  void queriesThatEndedTogetherWithTheSameRecordsTravelAsOneMessage() throws Exception {
    String json = "{\"id\":\"x\",\"n\":1}";
    Map<String, Object> kept =
        RawJson.of(json.getBytes(StandardCharsets.UTF_8), new String[0], new Object[0]);
    Result a = rawResult(List.of(kept, Map.of("plain", 1L)));
    Meta m = a.meta();
    Result b =
        new Result(
            a.records(),
            new Meta(
                "b:q",
                "select * from STREAM(1000, TIME) limit 10",
                1_500,
                Optional.of(2_000L),
                Optional.empty(),
                Map.of(),
                List.of(),
                true,
                Map.of("malformed", 2L),
                Optional.empty()));
    assertThat(Reply.recordBytes(a)).isEqualTo(Reply.recordBytes(b));
    byte[] bytes =
        Reply.encodeEndedTogether(
            List.of(Reply.result("a:q", a), Reply.result("b:q", b)),
            java.util.Arrays.asList(null, "stopped"));
    assertThat(bytes[4]).isEqualTo((byte) Reply.SHARED_VERSION);
    assertThat(new String(bytes, StandardCharsets.UTF_8).split("\"n\":1", -1))
        .as("the records once")
        .hasSize(2);
    List<Reply> all = Reply.decodeAll(bytes);
    assertThat(all)
        .extracting(Reply::kind, Reply::queryId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.RESULT, "a:q"),
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.ENDED, "a:q"),
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.RESULT, "b:q"),
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.ENDED, "b:q"));
    assertThat(all.get(0).result().meta()).isEqualTo(m);
    assertThat(all.get(2).result().meta()).isEqualTo(b.meta());
    assertThat(ResultJson.write(all.get(0).result())).isEqualTo(ResultJson.write(a));
    assertThat(ResultJson.write(all.get(2).result())).isEqualTo(ResultJson.write(b));
    assertThat(all.get(1).error()).isNull();
    assertThat(all.get(3).error()).isEqualTo("stopped");
    assertThatThrownBy(() -> Reply.decode(bytes))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("decodeAll");
    // a single reply reads as a list of one
    assertThat(Reply.decodeAll(Reply.running("a:q").encode()))
        .containsExactly(Reply.running("a:q"));
  }

  /**
   * The records of a {@code SELECT *} kept as their JSON go as their bytes (version 3), are not
   * decoded on either side, and are written by the reader exactly as the job's own record would be.
   */
  @Test
  void recordsKeptAsTheirJsonTravelAsTheirBytes() throws Exception {
    String json = "{\"id\":\"x\",\"n\":-12,\"d\":17.54,\"o\":{\"a\":[1,true,null,\"é\"]}}";
    String spaced = "{\"id\" : \"x\", \"s\":\"a\\u0041\"}";
    Map<String, Object> kept =
        RawJson.of(
            json.getBytes(StandardCharsets.UTF_8), new String[] {"_read_ms"}, new Object[] {7L});
    Map<String, Object> notCanonical =
        RawJson.of(spaced.getBytes(StandardCharsets.UTF_8), new String[0], new Object[0]);
    Result r = rawResult(List.of(kept, notCanonical, Map.of("plain", 1L)));
    String expected = ResultJson.write(r);
    byte[] bytes = Reply.result("a:q", r).encode();
    assertThat(bytes[4]).isEqualTo((byte) Reply.VERSION);
    assertThat(kept).isInstanceOf(RawJson.class);
    assertThat(((RawJson) kept).kept()).as("the job decodes nothing").isNotNull();
    Result back = Reply.decode(bytes).result();
    assertThat(back.records().get(0)).isInstanceOf(RawJson.class);
    assertThat(((RawJson) back.records().get(0)).kept()).as("nor does the reader").isNotNull();
    assertThat(ResultJson.write(back)).isEqualTo(expected);
    assertThat(back.records()).isEqualTo(r.records());
    // without records kept as JSON, a reply is of version 2, which earlier readers read
    byte[] maps = Reply.result("a:q", rawResult(List.of(Map.of("plain", 1L)))).encode();
    assertThat(maps[4]).isEqualTo((byte) 2);
  }

  @Test
  void aRecordKeptAsJsonThatIsNotJsonIsRefused() {
    Map<String, Object> kept;
    try {
      kept = RawJson.of("{\"a\":1}".getBytes(StandardCharsets.UTF_8), new String[0], new Object[0]);
    } catch (MalformedRecordException e) {
      throw new AssertionError(e);
    }
    byte[] bytes = Reply.result("a:q", rawResult(List.of(kept))).encode();
    // the record's closing brace, the last byte before the meta, becomes a space
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int at = text.indexOf("{\"a\":1}") + 6;
    bytes[at] = ' ';
    assertThatThrownBy(() -> Reply.decode(bytes))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("not one JSON object");
  }

  private static Result rawResult(List<Map<String, Object>> records) {
    return new Result(
        records,
        new Meta(
            "a:q",
            "SELECT * FROM STREAM(1000, TIME) LIMIT 10",
            1_000,
            Optional.of(2_000L),
            Optional.empty(),
            Map.of(),
            List.of(),
            true,
            Map.of(),
            Optional.empty()));
  }

  /**
   * After a restart the job may emit results again: each event-time window's final result and each
   * late update reach the reader once, late updates of old windows included.
   */
  @Test
  void eventTimeWindowsAreDeliveredOnceEach() throws Exception {
    Replies replies = new Replies(16, id -> {});
    RemoteQuery q = replies.register(Query.parse("q", BQL, QueryLimits.DEFAULTS, 0), "a:q");
    Result w0 = eventResult(0, new Meta.EventWindow(1000, true, 0, false), time(0));
    Result late0 = eventResult(0, new Meta.EventWindow(1000, true, 2, true), time(2));
    Result w1 = eventResult(1, new Meta.EventWindow(2000, true, 0, false), time(2));
    Result lateAgain0 = eventResult(0, new Meta.EventWindow(1000, true, 1, true), time(3));
    for (Result r : List.of(w0, late0, w0, late0, w1, late0, w1, lateAgain0)) {
      replies.accept(Reply.result("a:q", r));
    }
    assertThat(q.duplicates()).isEqualTo(4);
    for (Result want : List.of(w0, late0, w1, lateAgain0)) {
      Result got = q.poll(1, TimeUnit.SECONDS);
      assertThat(got.meta().window()).isEqualTo(want.meta().window());
      assertThat(got.meta().queryId()).isEqualTo("q");
      assertThat(got.meta().eventTime()).isEqualTo(want.meta().eventTime());
    }
    assertThat(q.poll(0, TimeUnit.MILLISECONDS)).isNull();
  }

  private static Meta.EventTimeMeta time(long late) {
    return new Meta.EventTimeMeta(Optional.of(2_500L), Optional.of(2_500L), late, 0);
  }

  private static Result eventResult(
      long number, Meta.EventWindow window, Meta.EventTimeMeta eventTime) {
    return new Result(
        List.of(Map.of("n", 3L)),
        new Meta(
            "a:q",
            BQL,
            1_000,
            Optional.empty(),
            Optional.of(
                new Meta.WindowMeta(
                    number,
                    "TUMBLING(1000, EVENT_TIME(ts), LATENESS 0)",
                    9_000,
                    number * 1000,
                    window.lateUpdate() ? 0 : 1,
                    Optional.of(window))),
            Map.of(),
            List.of(),
            false,
            Map.of(),
            Optional.of(eventTime)));
  }
}
