package io.spyglass.scenarios;

import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.GeneratorSource;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Bullet's test 1, the minimum latency: {@code SELECT * FROM STREAM(30000, TIME) LIMIT 1} run 100
 * times, one after another, over the generator at a background rate, after unmeasured ones for
 * {@link Settings#jitWarmupMs()}. Delays are relative to when the engine received the query.
 */
final class LatencyScenario implements Scenario {
  @Override
  public String name() {
    return "latency";
  }

  @Override
  public String description() {
    return "Bullet test 1: SELECT * ... LIMIT 1 repeated; delays query received -> record read"
        + " -> query finished -> result received";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    int queries = s.quick() ? 10 : 100;
    long rate = s.rateOr(Settings.BULLET_RATE);
    report.note(
        String.format(
            "%d queries, one at a time; generator at %,d records/s of %d B; %d workers",
            queries, rate, s.recordBytes(), Machine.cores()));
    GeneratorSource source =
        new GeneratorSource(
            GeneratorSource.Options.DEFAULTS.withRate(rate).withRecordBytes(s.recordBytes()));
    Delays read = new Delays();
    Delays finished = new Delays();
    Delays received = new Delays();
    Delays readToEmitted = new Delays();
    try (Engine engine = Engine.start(source, EngineConfig.defaults())) {
      s.warmThenMeasure(
          (pass, measured) -> {
            for (int i = 0; i < queries; i++) {
              QueryHandle h = engine.submit("SELECT * FROM STREAM(30000, TIME) LIMIT 1");
              Result r = h.poll(40, TimeUnit.SECONDS);
              long now = System.currentTimeMillis();
              if (r == null || r.records().size() != 1) {
                report.problem("query " + i + " returned " + (r == null ? "nothing" : r.records()));
                continue;
              }
              long q = r.meta().receiveTimeMs();
              long f = r.meta().finishTimeMs().orElse(now);
              Map<String, Object> rec = r.records().get(0);
              if (!(rec.get("_read_ms") instanceof Number readMs)) {
                report.problem("query " + i + ": the record has no _read_ms");
                continue;
              }
              if (measured) {
                read.record(readMs.longValue() - q);
                finished.record(f - q);
                received.record(now - q);
                readToEmitted.record(f - readMs.longValue());
              }
            }
          });
    }
    Table t =
        new Table(
            "latency",
            "Delays relative to the query received (ms), over " + queries + " queries",
            "timestamp",
            "mean",
            "p50",
            "p99",
            "max");
    t.row(cat("Record read (_read_ms)", read.cells()));
    t.row("Query received", "0", "0", "0", "0");
    t.row(cat("Query finished (result emitted)", finished.cells()));
    t.row(cat("Result received by the caller", received.cells()));
    report.table(t);
    Table d =
        new Table(
            "latency-read-to-emitted",
            "Record read -> result emitted (ms)",
            "delay",
            "mean",
            "p50",
            "p99",
            "max");
    d.row(cat("read -> emitted", readToEmitted.cells()));
    report.table(d);
  }

  static Object[] cat(String first, Object[] rest) {
    Object[] all = new Object[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
