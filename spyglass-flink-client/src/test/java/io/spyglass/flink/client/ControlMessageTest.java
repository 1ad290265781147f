package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The query topic's messages: a query's sinks travel with it, and older messages read as before.
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
}
