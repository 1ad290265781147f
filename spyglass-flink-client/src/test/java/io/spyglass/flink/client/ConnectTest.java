package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Connecting to a Kafka that is not there fails soon, and says what to check. */
class ConnectTest {
  @Test
  void aKafkaThatDoesNotAnswerIsNamedWithinSeconds() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // free again once closed: nothing listens there
    }
    String bootstrap = "127.0.0.1:" + port;
    long start = System.nanoTime();
    assertThatThrownBy(() -> FlinkQueryClient.connect(FlinkQueryClient.Settings.of(bootstrap, "t")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Kafka at " + bootstrap + " did not answer within")
        .hasMessageContaining("--kafka");
    org.assertj.core.api.Assertions.assertThat((System.nanoTime() - start) / 1_000_000_000)
        .as("seconds before it gave up")
        .isLessThan(FlinkQueryClient.ANSWER_SECONDS + 20);
  }
}
