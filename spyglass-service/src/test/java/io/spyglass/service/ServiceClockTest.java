package io.spyglass.service;

import static io.spyglass.service.MeteringApiTest.COUNT;
import static io.spyglass.service.MeteringApiTest.T0;
import static io.spyglass.service.MeteringMetricsTest.awaitMetric;
import static io.spyglass.service.MeteringMetricsTest.metric;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.metering.Metering;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service takes its time from the clock it is given, and gives it to the engine it builds (one
 * clock from the service's builder down): a test moves the wall clock rather than waiting. Over a
 * real server on a loopback port, with ingestion and standing queries.
 */
class ServiceClockTest {
  @TempDir Path data;

  /** A wall clock the test sets; the machine's monotonic clock (timeouts stay real). */
  private final AtomicLong wall = new AtomicLong(T0);

  private final SpyglassClock clock = new SpyglassClock(wall::get, SpyglassClock.system()::nanos);

  @Test
  void theCheckpointsAgeAndTheUptimeAreTheTimeSinceOnTheServicesClock() throws Exception {
    // a checkpoint an hour: none comes by itself while the test runs
    Metering.Settings hourly =
        new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null);
    try (ServiceFixture f = ServiceFixture.startMetering(data, hourly, b -> {}, clock)) {
      JsonNode health = ServiceFixture.json(f.get("/api/health").body());
      assertThat(health.get("checkpointAgeMs").asLong()).isZero();
      assertThat(health.get("uptimeMs").asLong()).isZero();

      wall.addAndGet(90_000); // a minute and a half later, without waiting for it
      health = ServiceFixture.json(f.get("/api/health").body());
      assertThat(health.get("checkpointAgeMs").asLong()).isEqualTo(90_000);
      assertThat(health.get("uptimeMs").asLong()).isEqualTo(90_000);
      assertThat(metric(f, "spyglass_checkpoint_age_seconds")).isEqualTo(90.0);

      // defining a standing query takes a checkpoint: its age is 0 again
      double before = metric(f, "spyglass_checkpoints_total");
      String create =
          ServiceFixture.JSON
              .createObjectNode()
              .put("name", "usage")
              .put("query", COUNT)
              .toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      awaitMetric(f, "spyglass_checkpoints_total", v -> v > before);
      health = ServiceFixture.json(f.get("/api/health").body());
      assertThat(health.get("checkpointAgeMs").asLong()).isZero();
      assertThat(metric(f, "spyglass_checkpoint_age_seconds")).isZero();
    }
  }

  @Test
  void theEngineTheServiceBuildsReadsOnTheServicesClock() throws Exception {
    try (ServiceFixture f =
        ServiceFixture.startMetering(data, MeteringApiTest.settings(), b -> {}, clock)) {
      wall.addAndGet(90_000);
      String id = f.submit("SELECT id, _read_ms AS readMs FROM STREAM(60s, TIME) LIMIT 1");
      AtomicBoolean stop = new AtomicBoolean();
      Thread ingesting =
          new Thread(
              () -> {
                // until the query has one: it sees the documents read after it started
                for (int i = 0; !stop.get(); i++) {
                  MeteringApiTest.ingest(f, MeteringApiTest.doc("d" + i, 1) + "\n");
                  LockSupport.parkNanos(20_000_000);
                }
              });
      ingesting.start();
      List<ServiceFixture.Event> events;
      try (ServiceFixture.Sse s = f.sse(id)) {
        events = s.all();
      } finally {
        stop.set(true);
        ingesting.join();
      }
      JsonNode read =
          events.stream()
              .filter(e -> "result".equals(e.event()))
              .flatMap(e -> StreamSupport.stream(e.json().get("records").spliterator(), false))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no record in " + events));
      // the engine stamped the record with the service's wall clock, not the machine's
      assertThat(read.get("readMs").asLong()).isEqualTo(T0 + 90_000);
    }
  }
}
