package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One attempt at a document outside any buffer (an alert's outbox sends so and tries again itself),
 * against a real receiver on loopback: what it came to, under the document's key, counted as other
 * deliveries are; a sink the policy does not allow is refused before anything is sent.
 */
class SendOnceTest {
  static SinkDocument doc(String key) {
    return SinkDocument.of(key, ("{\"key\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachAttemptSaysWhetherItWasTakenAndWhetherToTryAgain() throws Exception {
    try (Receiver r = new Receiver();
        Sinks sinks =
            new Sinks(
                DeliverySettings.DEFAULTS, SinkPolicy.of(List.of("127.0.0.1"), null, List.of()))) {
      SinkSpec hook = SinkSpec.webhook(r.url());
      r.answer = (i, k) -> i == 0 ? 503 : i == 1 ? 400 : 200;
      Sinks.Attempt first = sinks.sendOnce(hook, doc("a:1")).get(10, TimeUnit.SECONDS);
      assertThat(first.delivered()).isFalse();
      assertThat(first.again()).as("503: worth another attempt").isTrue();
      assertThat(first.error()).contains("503");
      Sinks.Attempt second = sinks.sendOnce(hook, doc("a:2")).get(10, TimeUnit.SECONDS);
      assertThat(second.delivered()).isFalse();
      assertThat(second.again()).as("400: refused for good").isFalse();
      Sinks.Attempt third = sinks.sendOnce(hook, doc("a:1")).get(10, TimeUnit.SECONDS);
      assertThat(third.delivered()).isTrue();
      assertThat(third.error()).isNull();
      assertThat(r.calls()).extracting(Receiver.Call::key).containsExactly("a:1", "a:2", "a:1");
      assertThat(r.accepted().get(0).body()).isEqualTo("{\"key\":\"a:1\"}");
      assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DELIVERED)).isEqualTo(1);
      assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.RETRIED)).isEqualTo(1);
      assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DROPPED)).isEqualTo(1);

      assertThatThrownBy(() -> sinks.sendOnce(SinkSpec.webhook("http://10.0.0.1/x"), doc("b:1")))
          .isInstanceOf(SinkSpecException.class);
      assertThat(r.arrivals()).isEqualTo(3);
    }
  }
}
