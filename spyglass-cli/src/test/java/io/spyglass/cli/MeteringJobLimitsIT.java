package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.MeteringRun;
import io.spyglass.service.MeteringStart;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.UsageLimits;
import io.spyglass.service.metering.JobReplies;
import io.spyglass.service.metering.JobStanding;
import io.spyglass.service.metering.Metering;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of {@code serve --runtime flink --source http} on the job, over one service in this
 * process (a real HTTP server on loopback, SQLite, the job on a mini cluster): {@code
 * --ingest-backlog} bounds how far the job is behind the log (its input held back here at the
 * committed end it reads up to), and {@code --max-standing-state} stops a standing query whose
 * state on the job grew over it, the others going on.
 */
class MeteringJobLimitsIT {
  static final long BACKLOG = 64 << 10;
  static final long MAX_STATE = 16 << 10;
  static final long T = 1_767_225_600_000L;

  /** How far the job may read the log: the committed end, held back below it by a test. */
  static final AtomicLong gate = new AtomicLong(Long.MAX_VALUE);

  @TempDir static Path data;
  static SpyglassService service;
  static String url;

  @BeforeAll
  static void start() throws Exception {
    UsageLimits u = UsageLimits.DEFAULTS;
    UsageLimits usage =
        new UsageLimits(
            u.tenantField(),
            u.maxStandingQueriesPerUser(),
            u.standingQueriesAdminOnly(),
            u.maxStandingGroups(),
            MAX_STATE,
            u.maxSavedPerUser(),
            u.maxSavedBytesPerUser(),
            u.maxHistoryPerUser(),
            u.minFreeDiskBytes());
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = 0;
                  b.dataDir = data;
                  b.usage = usage;
                });
    JobStanding.Starter real = MeteringJob.starter(MeteringRun.Settings.DEFAULTS);
    JobStanding.Starter held =
        new JobStanding.Starter() {
          @Override
          public JobStanding.Job start(
              Path ingestDir,
              Path jobDir,
              Consumer<JobReplies.Reply> replies,
              LongSupplier committedEnd)
              throws Exception {
            return real.start(
                ingestDir, jobDir, replies, () -> Math.min(committedEnd.getAsLong(), gate.get()));
          }

          @Override
          public Map<String, Boolean> queries(Path jobDir) throws IOException {
            return real.queries(jobDir);
          }
        };
    service =
        SpyglassService.startMetering(
            config,
            MeteringStart.of(
                    new Metering.Settings(
                        "id", Ingestor.Options.DEFAULTS.withBacklogBytes(BACKLOG), 200, null))
                .withEngine(EngineConfig.defaults().withWorkers(1))
                .withJob(held));
    url = service.url();
    if (!url.endsWith("/")) {
      url += "/";
    }
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  /** {@code n} documents with ids {@code prefix0...}, each of quantity 1, in the same hour. */
  static String docs(String prefix, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("{\"id\":\"")
          .append(prefix)
          .append(i)
          .append("\",\"org\":\"o1\",\"quantity\":1,\"pad\":\"")
          .append("x".repeat(40))
          .append("\",\"time\":")
          .append(T + i)
          .append("}\n");
    }
    return b.toString();
  }

  /** Posts until it is taken (202), waiting out 429s. */
  static void ingestTaken(String body) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    HttpResponse<String> r = MeteringServe.ingest(url, body);
    while (r.statusCode() == 429 && System.nanoTime() < until) {
      Thread.sleep(100);
      r = MeteringServe.ingest(url, body);
    }
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  /** The documents counted in every window of {@code name} once they reach {@code docs}. */
  static long awaitCounted(String name, long docs) throws Exception {
    return MeteringServe.awaitCounted(url, name, docs)[0];
  }

  static JsonNode listed(String name) throws Exception {
    return MeteringServe.listed(url, name);
  }

  /** The metric of the standing queries' state sizes, as text. */
  static String stateBytes() throws Exception {
    HttpResponse<String> r = MeteringServe.get(url, "metrics");
    return r.body()
        .lines()
        .filter(l -> l.startsWith("spyglass_standing_state_bytes"))
        .reduce("", (a, b) -> a + b + "\n");
  }

  @Test
  void theBacklogBoundsHowFarTheJobIsBehindTheLog() throws Exception {
    MeteringServe.define(url, "backlog", MeteringIT.COUNT);
    long taken = 0;
    HttpResponse<String> refused = null;
    try {
      // the job reads nothing more: the embedded engine keeps up, the job does not
      gate.set(service.metering().ingestor().log().committedEnd());
      for (int i = 0; i < 40 && refused == null; i++) {
        HttpResponse<String> r =
            MeteringServe.ingest(url, docs("b" + i + "-", 100)); // about 11 KiB
        if (r.statusCode() == 202) {
          taken += 100;
        } else {
          refused = r;
        }
      }
    } finally {
      gate.set(Long.MAX_VALUE);
    }
    assertThat(refused).as("a request refused for the job's lag").isNotNull();
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(refused.body()).contains("backlog");
    assertThat(taken).isBetween(100L, 800L);
    // the job catches up: requests are taken again, every acknowledged document counted once
    ingestTaken(docs("c-", 100));
    assertThat(awaitCounted("backlog", taken + 100)).isEqualTo(taken + 100);
  }

  @Test
  void aStandingQueryWhoseStateOnTheJobGrowsOverTheBoundStopsTheOthersGoOn() throws Exception {
    MeteringServe.define(url, "small", MeteringIT.COUNT);
    MeteringServe.define(
        url,
        "big",
        "SELECT id, COUNT(*) AS docs FROM STREAM(FOREVER) GROUP BY id"
            + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)");
    for (int i = 0; i < 10; i++) {
      ingestTaken(docs("s" + i + "-" + "k".repeat(40) + "-", 100)); // 1,000 groups of 45 bytes
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!listed("big").path("state").asText().equals("FAILED") && System.nanoTime() < until) {
      Thread.sleep(100);
    }
    JsonNode big = listed("big");
    assertThat(big.path("state").asText()).as(big + "\n" + stateBytes()).isEqualTo("FAILED");
    assertThat(big.path("error").asText()).contains("--max-standing-state");
    assertThat(listed("small").path("state").asText()).isEqualTo("RUNNING");
    ingestTaken(docs("t-", 1));
    assertThat(awaitCounted("small", 1001)).isEqualTo(1001);
  }
}
