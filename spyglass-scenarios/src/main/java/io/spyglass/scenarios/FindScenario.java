package io.spyglass.scenarios;

import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.GeneratorSource;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Bullet's test 2, the time to find a record: a needle query starts, then the needle is inserted
 * into the background stream; delays relative to the query received, over 100 queries (after
 * unmeasured ones for {@link Settings#jitWarmupMs()}).
 */
final class FindScenario implements Scenario {
  @Override
  public String name() {
    return "find";
  }

  @Override
  public String description() {
    return "Bullet test 2: start a needle query, insert the needle; delays inserted -> read ->"
        + " finished";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    int queries = s.quick() ? 10 : 100;
    long rate = s.rateOr(Settings.BULLET_TEST_2_RATE);
    report.note(
        String.format(
            "%d needle queries, one at a time; generator at %,d records/s of %d B; %d workers",
            queries, rate, s.recordBytes(), Machine.cores()));
    GeneratorSource source =
        new GeneratorSource(
            GeneratorSource.Options.DEFAULTS.withRate(rate).withRecordBytes(s.recordBytes()));
    Delays running = new Delays();
    Delays inserted = new Delays();
    Delays read = new Delays();
    Delays finished = new Delays();
    Delays received = new Delays();
    Delays readToFinished = new Delays();
    try (Engine engine = Engine.start(source, EngineConfig.defaults())) {
      s.warmThenMeasure(
          (pass, measured) -> {
            for (int i = 0; i < queries; i++) {
              String id = "find-" + pass + "-" + i + "-" + System.nanoTime();
              QueryHandle h =
                  engine.submit(
                      "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + id + "' LIMIT 1");
              h.awaitRunning(30, TimeUnit.SECONDS);
              long runningAt = System.currentTimeMillis();
              // a random phase against the reader's batches, as needles arrive at any time
              Thread.sleep(ThreadLocalRandom.current().nextInt(20));
              long insertedAt = System.currentTimeMillis();
              source.insertNeedle(Map.of("id", id));
              Result r = h.poll(40, TimeUnit.SECONDS);
              long now = System.currentTimeMillis();
              if (r == null
                  || r.records().size() != 1
                  || !id.equals(r.records().get(0).get("id"))) {
                report.problem("needle " + id + " not found: " + (r == null ? "no result" : r));
                continue;
              }
              if (measured) {
                long q = r.meta().receiveTimeMs();
                long f = r.meta().finishTimeMs().orElse(now);
                long readMs = ((Number) r.records().get(0).get("_read_ms")).longValue();
                running.record(runningAt - q);
                inserted.record(insertedAt - q);
                read.record(readMs - q);
                finished.record(f - q);
                received.record(now - q);
                readToFinished.record(f - readMs);
              }
            }
          });
    }
    Table t =
        new Table(
            "find",
            "Delays relative to the query received (ms), over " + queries + " queries",
            "timestamp",
            "mean",
            "p50",
            "p99",
            "max");
    t.row("Query received", "0", "0", "0", "0");
    t.row(LatencyScenario.cat("Query running on every worker", running.cells()));
    t.row(LatencyScenario.cat("Needle inserted", inserted.cells()));
    t.row(LatencyScenario.cat("Needle read (_read_ms)", read.cells()));
    t.row(LatencyScenario.cat("Query finished (result emitted)", finished.cells()));
    t.row(LatencyScenario.cat("Result received by the caller", received.cells()));
    report.table(t);
    Table d =
        new Table(
            "find-read-to-finished",
            "Needle read -> query finished (ms); Bullet: 10.3 ms",
            "delay",
            "mean",
            "p50",
            "p99",
            "max");
    d.row(LatencyScenario.cat("read -> finished", readToFinished.cells()));
    report.table(d);
  }
}
