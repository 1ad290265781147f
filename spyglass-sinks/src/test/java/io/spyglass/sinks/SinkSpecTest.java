package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SinkSpecTest {
  @Test
  void theCommandLinesUrlFormsMakeEachType() {
    assertThat(SinkSpec.parseUrl("https://hooks.example.com/a?b=c"))
        .isEqualTo(SinkSpec.webhook("https://hooks.example.com/a?b=c"));
    assertThat(SinkSpec.parseUrl("http://127.0.0.1:9400/x"))
        .isEqualTo(SinkSpec.webhook("http://127.0.0.1:9400/x"));
    assertThat(SinkSpec.parseUrl("file:/tmp/out.ndjson"))
        .isEqualTo(SinkSpec.file("/tmp/out.ndjson"));
    assertThat(SinkSpec.parseUrl("file:out.ndjson")).isEqualTo(SinkSpec.file("out.ndjson"));
    assertThat(SinkSpec.parseUrl("file:///tmp/a%20b.ndjson"))
        .isEqualTo(SinkSpec.file("/tmp/a b.ndjson"));
    assertThat(SinkSpec.parseUrl("kafka://127.0.0.1:9092/results"))
        .isEqualTo(SinkSpec.kafka("127.0.0.1:9092", "results"));
    assertThat(SinkSpec.parseUrl("kafka://a:9092,b:9093/r").bootstrap()).isEqualTo("a:9092,b:9093");
  }

  @Test
  void aBadUrlSaysWhatToWrite() {
    assertThatThrownBy(() -> SinkSpec.parseUrl("ftp://x/y"))
        .isInstanceOf(SinkSpecException.class)
        .hasMessageContaining("is not a sink")
        .satisfies(
            e -> {
              SinkSpecException s = (SinkSpecException) e;
              assertThat(s.field()).isEqualTo("--sink");
              assertThat(s.resolution()).contains("kafka://HOST:PORT/TOPIC");
            });
    assertThatThrownBy(() -> SinkSpec.parseUrl("kafka://127.0.0.1:9092"))
        .hasMessageContaining("names no topic");
    assertThatThrownBy(() -> SinkSpec.parseUrl("kafka://127.0.0.1:9092/bad topic"))
        .hasMessageContaining("is not a Kafka topic's name");
    assertThatThrownBy(() -> SinkSpec.parseUrl("https://user:pw@hooks.example.com/x"))
        .hasMessageContaining("user information");
    assertThatThrownBy(() -> SinkSpec.parseUrl("https:///x")).hasMessageContaining("no host");
  }

  @Test
  void theApisObjectsAreCheckedFieldByField() {
    assertThat(SinkSpec.fromFields(Map.of("type", "webhook", "url", "https://h/x"), "sinks[0]"))
        .isEqualTo(SinkSpec.webhook("https://h/x"));
    assertThat(
            SinkSpec.fromFields(
                Map.of("type", "kafka", "topic", "t", "bootstrap", "k:9092"), "sinks[0]"))
        .isEqualTo(SinkSpec.kafka("k:9092", "t"));
    assertThat(SinkSpec.fromFields(Map.of("type", "kafka", "topic", "t"), "sinks[0]").bootstrap())
        .isNull();
    assertThatThrownBy(() -> SinkSpec.fromFields(Map.of("url", "https://h/x"), "sinks[1]"))
        .isInstanceOf(SinkSpecException.class)
        .hasMessage("A sink needs a \"type\"")
        .extracting(e -> ((SinkSpecException) e).field())
        .isEqualTo("sinks[1].type");
    assertThatThrownBy(() -> SinkSpec.fromFields(Map.of("type", "email"), "sinks[0]"))
        .hasMessageContaining("Unknown sink type 'email'");
    assertThatThrownBy(() -> SinkSpec.fromFields(Map.of("type", "file", "url", "x"), "sinks[2]"))
        .extracting(e -> ((SinkSpecException) e).field())
        .isEqualTo("sinks[2].url");
    assertThatThrownBy(() -> SinkSpec.fromFields(Map.of("type", "file"), "sinks[0]"))
        .hasMessageContaining("needs \"path\"")
        .extracting(e -> ((SinkSpecException) e).field())
        .isEqualTo("sinks[0].path");
    assertThatThrownBy(
            () -> SinkSpec.fromFields(Map.of("type", "webhook", "url", "gopher://h/"), "sinks[0]"))
        .hasMessageContaining("http:// or https://")
        .extracting(e -> ((SinkSpecException) e).field())
        .isEqualTo("sinks[0].url");
  }

  @Test
  void sinksRoundTripThroughTheirStoredJson() {
    List<SinkSpec> sinks =
        List.of(
            SinkSpec.webhook("https://h/x?a=b&c=d"),
            SinkSpec.file("out/q.ndjson"),
            SinkSpec.kafka(null, "t"),
            SinkSpec.kafka("k:9092", "u"));
    String json = SinkSpec.toJson(sinks);
    assertThat(json)
        .startsWith("[{\"type\":\"webhook\",\"url\":\"https://h/x?a=b&c=d\"},{\"type\":\"file\"");
    assertThat(SinkSpec.listFromJson(json)).isEqualTo(sinks);
    assertThat(SinkSpec.listFromJson(null)).isEmpty();
    Map<String, String> fields = new LinkedHashMap<>(sinks.get(3).toFields());
    assertThat(fields)
        .containsExactly(
            Map.entry("type", "kafka"), Map.entry("topic", "u"), Map.entry("bootstrap", "k:9092"));
  }
}
