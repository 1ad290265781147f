package io.spyglass.service.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The documents events are sent as: plain JSON, and Alertmanager's {@code POST /api/v2/alerts}. */
class PayloadsTest {
  static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  static AlertSpec spec(Payloads.Format format) {
    return new AlertSpec(
        "orders",
        Evaluator.JSON.createObjectNode().put("having", "n < 5"),
        "n < 5",
        Evaluator.JSON.createObjectNode().put("type", "webhook").put("url", "http://127.0.0.1/x"),
        format,
        0,
        Map.of("severity", "page"));
  }

  static AlertStore.Event event(String state) {
    return new AlertStore.Event(
        "few-orders",
        "0123456789abcdef",
        T0,
        T0 + 60_000,
        7,
        state,
        "{\"org\":\"acme\",\"sub.region\":\"eu\"}",
        "{\"org\":\"acme\",\"sub.region\":\"eu\",\"n\":3}",
        T0 + 61_000,
        AlertStore.PENDING,
        0,
        null,
        null);
  }

  static JsonNode read(byte[] doc) throws Exception {
    return Evaluator.JSON.readTree(doc);
  }

  @Test
  void thePlainFormSaysWhatFiredWhereAndWhen() throws Exception {
    JsonNode d = read(Payloads.of(event("firing"), spec(Payloads.Format.JSON), "/alerts?alert=x"));
    assertThat(d.get("key").asText()).isEqualTo("few-orders:" + T0 + ":0123456789abcdef");
    assertThat(d.get("alert").asText()).isEqualTo("few-orders");
    assertThat(d.get("state").asText()).isEqualTo("firing");
    assertThat(d.get("labels").get("org").asText()).isEqualTo("acme");
    assertThat(d.get("labels").get("severity").asText()).isEqualTo("page");
    assertThat(d.get("window").get("start").asLong()).isEqualTo(T0);
    assertThat(d.get("window").get("end").asLong()).isEqualTo(T0 + 60_000);
    assertThat(d.get("values").get("n").asLong()).isEqualTo(3);
    assertThat(d.get("query").asText()).isEqualTo("orders");
    assertThat(d.get("time").asLong()).isEqualTo(T0 + 61_000);
  }

  @Test
  void theAlertmanagerFormIsAnArrayOfPostableAlerts() throws Exception {
    JsonNode firing =
        read(
            Payloads.of(
                event("firing"), spec(Payloads.Format.ALERTMANAGER), "https://s.example.com/a"));
    assertThat(firing.isArray()).isTrue();
    assertThat(firing).hasSize(1);
    JsonNode a = firing.get(0);
    assertThat(a.get("labels").get("alertname").asText()).isEqualTo("few-orders");
    assertThat(a.get("labels").get("org").asText()).isEqualTo("acme");
    assertThat(a.get("labels").get("sub_region").asText())
        .as("label names are [a-zA-Z_][a-zA-Z0-9_]*")
        .isEqualTo("eu");
    assertThat(a.get("labels").get("severity").asText()).isEqualTo("page");
    a.get("labels").properties().forEach(l -> assertThat(l.getValue().isTextual()).isTrue());
    assertThat(a.get("annotations").get("summary").asText()).contains("few-orders firing", "n < 5");
    assertThat(a.get("annotations").get("query").asText()).isEqualTo("orders");
    assertThat(a.get("annotations").get("window").asText())
        .isEqualTo("2026-01-01T00:00:00Z/2026-01-01T00:01:00Z");
    assertThat(Instant.parse(a.get("startsAt").asText())).isEqualTo(Instant.ofEpochMilli(T0));
    assertThat(Instant.parse(a.get("endsAt").asText()))
        .as("four windows after it was sent: sent again before, while it fires")
        .isEqualTo(Instant.ofEpochMilli(T0 + 61_000 + 4 * 60_000));
    assertThat(a.get("generatorURL").asText()).isEqualTo("https://s.example.com/a");

    JsonNode resolved =
        read(
            Payloads.of(
                event("resolved"), spec(Payloads.Format.ALERTMANAGER), "https://s.example.com/a"));
    assertThat(Instant.parse(resolved.get(0).get("endsAt").asText()))
        .isEqualTo(Instant.ofEpochMilli(T0));
  }

  @Test
  void labelNamesAreMadeLegal() {
    assertThat(Payloads.labelName("COUNT(*)")).isEqualTo("COUNT___");
    assertThat(Payloads.labelName("1st")).isEqualTo("_st");
    assertThat(Payloads.labelName("")).isEqualTo("_");
  }
}
