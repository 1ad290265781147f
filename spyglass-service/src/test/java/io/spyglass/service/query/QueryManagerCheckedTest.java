package io.spyglass.service.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.service.runtime.RuntimeStats;
import io.spyglass.sources.GeneratorSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A submission is compiled once, under the service's limits: the runtime gets the checked query,
 * and the engine runs that very plan with those limits (once the text was compiled twice, by the
 * service and again by the engine under the engine's own limits).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QueryManagerCheckedTest {
  /** The embedded runtime, keeping what it was handed. */
  private static final class Recording implements QueryRuntime {
    final EmbeddedRuntime inner;
    final List<CheckedQuery> submitted = new CopyOnWriteArrayList<>();

    Recording(EmbeddedRuntime inner) {
      this.inner = inner;
    }

    @Override
    public void submit(String id, CheckedQuery query, ResultListener listener) {
      submitted.add(query);
      inner.submit(id, query, listener);
    }

    @Override
    public void kill(String id) {
      inner.kill(id);
    }

    @Override
    public void killAll() {
      inner.killAll();
    }

    @Override
    public Map<String, QueryStats> progress() {
      return inner.progress();
    }

    @Override
    public Optional<QueryStats> progress(String id) {
      return inner.progress(id);
    }

    @Override
    public RuntimeStats stats() {
      return inner.stats();
    }

    @Override
    public void sampleRecords(int everyN, RecordSampler sampler) {
      inner.sampleRecords(everyN, sampler);
    }

    @Override
    public String describe() {
      return inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  @Test
  void theRuntimeRunsThePlanTheServiceCheckedUnderTheServicesLimits() {
    // the service allows fewer raw records than the engine's defaults
    QueryLimits service =
        new QueryLimits(
            30_000L, 60_000L, 3, 5, 512, 1_000_000, 16_384, 1_024, 100, 1_024, 1_000, 100L,
            64 * 1024, 500);
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(200));
    try (Recording runtime =
        new Recording(
            EmbeddedRuntime.start(source, EngineConfig.defaults().withWorkers(1).withTickMs(20)))) {
      QueryManager m =
          new QueryManager(
              runtime,
              new QueryManager.Limits(
                  10, 10, 60_000, 60_000, 100, 1 << 20, service, ResultLimits.defaults(), 0),
              System::currentTimeMillis);
      ServiceQuery q = m.submit(new User("ann", false), "SELECT * FROM STREAM(MAX, TIME)", true);
      assertThat(runtime.submitted).hasSize(1);
      CheckedQuery checked = runtime.submitted.get(0);
      assertThat(checked.limits()).isSameAs(service);
      List<Query> running = runtime.inner.engine().running();
      assertThat(running).hasSize(1);
      assertThat(running.get(0).plan()).isSameAs(checked.plan()); // not compiled again
      assertThat(running.get(0).limits()).isSameAs(service);
      assertThat(q.durationMs()).isEqualTo(60_000); // STREAM(MAX) capped at the service's maximum
      m.stopAll();
    }
  }
}
