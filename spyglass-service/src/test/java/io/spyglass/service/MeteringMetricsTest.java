package io.spyglass.service;

import static io.spyglass.service.MeteringApiTest.COUNT;
import static io.spyglass.service.MeteringApiTest.doc;
import static io.spyglass.service.MeteringApiTest.ingest;
import static io.spyglass.service.MeteringApiTest.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metering can be watched: Prometheus metrics of ingestion (documents by outcome, requests by
 * status, backlog), standing queries (by state, documents without a time) and checkpoints (taken,
 * failed, age), and health counts the standing queries. Over a real server on a loopback port.
 */
class MeteringMetricsTest {
  @TempDir Path data;

  /** The value of the sample {@code series} (name and labels as exposed), or NaN if absent. */
  static double metric(ServiceFixture f, String series) {
    for (String line : f.get("/metrics").body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).strip());
      }
    }
    return Double.NaN;
  }

  static double awaitMetric(ServiceFixture f, String series, DoublePredicate condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    double v = Double.NaN;
    while (System.currentTimeMillis() < deadline) {
      v = metric(f, series);
      if (condition.test(v)) {
        return v;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(series + " never came to it: " + v);
  }

  @Test
  void ingestionStandingQueriesAndCheckpointsHaveMetricsAndHealthCountsThem() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON
              .createObjectNode()
              .put("name", "usage")
              .put("query", COUNT)
              .toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      String body =
          doc("a", 1)
              + "\n"
              + doc("b", 1)
              + "\n{\"id\":\"c\",\"q\":1,\"q\":2}\n"
              + "{\"id\":\"untimed\",\"quantity\":1}\n";
      assertThat(ingest(f, body).statusCode()).isEqualTo(202);
      assertThat(ingest(f, doc("a", 1) + "\n").statusCode()).isEqualTo(202);

      assertThat(metric(f, "spyglass_ingest_documents_total{outcome=\"accepted\"}")).isEqualTo(3);
      assertThat(metric(f, "spyglass_ingest_documents_total{outcome=\"duplicate\"}")).isEqualTo(1);
      assertThat(metric(f, "spyglass_ingest_documents_total{outcome=\"rejected\"}")).isEqualTo(1);
      assertThat(metric(f, "spyglass_ingest_requests_total{status=\"202\"}")).isEqualTo(2);
      assertThat(metric(f, "spyglass_ingest_requests_total{status=\"429\"}")).isZero();
      assertThat(metric(f, "spyglass_ingest_backlog_bytes")).isNotNaN();
      assertThat(metric(f, "spyglass_ingest_log_bytes")).isPositive();
      assertThat(metric(f, "spyglass_standing_queries{state=\"running\"}")).isEqualTo(1);
      assertThat(metric(f, "spyglass_standing_queries{state=\"failed\"}")).isZero();
      awaitMetric(f, "spyglass_checkpoints_total", v -> v >= 2);
      assertThat(metric(f, "spyglass_checkpoint_failures_total")).isZero();
      assertThat(metric(f, "spyglass_checkpoint_age_seconds")).isBetween(0.0, 10.0);
      awaitMetric(f, "spyglass_standing_documents_without_time{query=\"usage\"}", v -> v == 1);
      assertThat(metric(f, "spyglass_standing_state_bytes{query=\"usage\"}")).isPositive();

      JsonNode health = ServiceFixture.json(f.get("/api/health").body());
      assertThat(health.get("standingQueries").asInt()).isEqualTo(1);
      assertThat(health.get("standingQueriesFailed").asInt()).isZero();
      assertThat(health.get("checkpointAgeMs").asLong()).isBetween(0L, 10_000L);
      assertThat(health.get("ingestBacklogBytes").asLong()).isNotNegative();
    }
  }
}
