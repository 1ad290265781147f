package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.QueryLimits;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The query topic's messages: a query's sinks and limits travel with it, and older messages read as
 * before.
 */
class ControlMessageTest {
  private static ControlMessage parse(String json) {
    return ControlMessage.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aMessageWrittenBeforeSinksReadsAsBefore() {
    ControlMessage m =
        parse(
            "{\"v\": 1, \"type\": \"query\", \"id\": \"a:q1\", \"bql\": \"SELECT 1 FROM STREAM()\","
                + " \"receiveTime\": 1700000000000, \"replyTo\": \"spyglass-results-a\","
                + " \"instance\": \"a\", \"progress\": true}");
    assertThat(m)
        .isEqualTo(
            ControlMessage.query(
                    "a:q1", "SELECT 1 FROM STREAM()", 1700000000000L, "spyglass-results-a", "a")
                .withProgress(true));
    assertThat(m.sinks()).isNull();
  }

  @Test
  void aLookAtOpenWindowsRoundTripsAndNeedsItsNumberAndWhereToAnswer() {
    ControlMessage m = ControlMessage.inspect("a:q1", 42, "r", true);
    ControlMessage back = ControlMessage.parse(m.toJson());
    assertThat(back.type()).isEqualTo(ControlMessage.Type.INSPECT);
    assertThat(back.queryId()).isEqualTo("a:q1");
    assertThat(back.request()).isEqualTo(42);
    assertThat(back.replyTo()).isEqualTo("r");
    assertThat(back.windows()).isTrue();
    assertThat(
            ControlMessage.parse(ControlMessage.inspect("a:q1", 0, "r", false).toJson()).windows())
        .isFalse();
    assertThatThrownBy(
            () -> parse("{\"v\": 1, \"type\": \"inspect\", \"id\": \"x\", \"replyTo\": \"r\"}"))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("request");
  }

  @Test
  void aQuerysSinksRoundTrip() {
    ControlMessage m =
        ControlMessage.query("a:q1", "SELECT 1 FROM STREAM()", 5, "r", "a")
            .withSinks(new ControlMessage.Sinks("q1", List.of("results", "more")));
    String json = new String(m.toJson(), StandardCharsets.UTF_8);
    assertThat(json).endsWith(",\"sinks\":{\"query\":\"q1\",\"kafka\":[\"results\",\"more\"]}}");
    assertThat(ControlMessage.parse(m.toJson())).isEqualTo(m);
    assertThat(ControlMessage.kill("a:q1").toJson())
        .asString(StandardCharsets.UTF_8)
        .doesNotContain("sinks");
  }

  @Test
  void malformedSinksAreRefusedSayingWhy() {
    String head =
        "{\"v\": 1, \"type\": \"query\", \"id\": \"x\", \"bql\": \"b\", \"replyTo\": \"r\", ";
    assertThatThrownBy(() -> parse(head + "\"sinks\": [\"t\"]}"))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("sinks must be an object");
    assertThatThrownBy(() -> parse(head + "\"sinks\": {\"kafka\": [\"t\"]}}"))
        .hasMessageContaining("sinks.query");
    assertThatThrownBy(() -> parse(head + "\"sinks\": {\"query\": \"q\", \"kafka\": [1]}}"))
        .hasMessageContaining("array of topics");
  }

  @Test
  void aQuerysLimitsTravelWithItAndAMessageWithoutThemRunsUnderTheDefaults() {
    QueryLimits small = QueryLimits.DEFAULTS.withMaxExactGroups(7);
    ControlMessage m =
        ControlMessage.query("a:q1", "SELECT 1 FROM STREAM()", 5, "r", "a").withLimits(small);
    assertThat(new String(m.toJson(), StandardCharsets.UTF_8))
        .contains("\"limits\":{\"defaultDurationMs\":30000,")
        .contains("\"maxExactGroups\":7,");
    ControlMessage back = ControlMessage.parse(m.toJson());
    assertThat(back).isEqualTo(m);
    assertThat(back.limitsOr(QueryLimits.DEFAULTS)).isEqualTo(small);
    ControlMessage old = ControlMessage.query("a:q1", "SELECT 1 FROM STREAM()", 5, "r", "a");
    assertThat(ControlMessage.parse(old.toJson()).limits()).isNull();
    assertThat(ControlMessage.parse(old.toJson()).limitsOr(QueryLimits.DEFAULTS))
        .isSameAs(QueryLimits.DEFAULTS);
    // a setting left out is the default's; one unknown is ignored (a newer sender)
    ControlMessage some =
        parse(
            "{\"v\": 1, \"type\": \"query\", \"id\": \"x\", \"bql\": \"b\", \"replyTo\": \"r\","
                + " \"limits\": {\"maxRawLimit\": 5, \"maxSomethingNew\": 1}}");
    assertThat(some.limits())
        .isEqualTo(
            new QueryLimits(
                30_000L,
                24L * 60 * 60 * 1000,
                100,
                5,
                512,
                1_000_000,
                16_384,
                1_024,
                100,
                1_024,
                1_000,
                100L,
                64 * 1024,
                500));
  }

  @Test
  void malformedLimitsAreRefusedSayingWhich() {
    String head =
        "{\"v\": 1, \"type\": \"query\", \"id\": \"x\", \"bql\": \"b\", \"replyTo\": \"r\", ";
    assertThatThrownBy(() -> parse(head + "\"limits\": [1]}"))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("limits must be an object");
    assertThatThrownBy(() -> parse(head + "\"limits\": {\"maxGroups\": -1}}"))
        .hasMessageContaining("limits.maxGroups");
    assertThatThrownBy(() -> parse(head + "\"limits\": {\"maxGroups\": 4294967296}}"))
        .hasMessageContaining("limits.maxGroups");
    assertThatThrownBy(() -> parse(head + "\"limits\": {\"maxDurationMs\": \"1h\"}}"))
        .hasMessageContaining("limits.maxDurationMs");
  }
}
