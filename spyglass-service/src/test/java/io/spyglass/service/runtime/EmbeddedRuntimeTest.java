package io.spyglass.service.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.EngineConfig;
import io.spyglass.sources.GeneratorSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The thread that delivers results: one query's failure is that query's alone. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EmbeddedRuntimeTest {
  /** Records results and the end; throws {@code error} at the first result when given one. */
  static final class Listener implements ResultListener {
    final List<Result> results = new CopyOnWriteArrayList<>();
    final CompletableFuture<String> end = new CompletableFuture<>();
    final Error error;

    Listener(Error error) {
      this.error = error;
    }

    @Override
    public void onResult(Result result) {
      results.add(result);
      if (error != null) {
        throw error;
      }
    }

    @Override
    public void onEnd(String error, QueryStats last) {
      end.complete(error == null ? "" : error);
    }
  }

  @Test
  void aListenerThatThrowsAnErrorEndsItsQueryWithItAndTheOthersGoOn() throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(200));
    try (EmbeddedRuntime runtime =
        EmbeddedRuntime.start(source, EngineConfig.defaults().withWorkers(1).withTickMs(20))) {
      Listener failing = new Listener(new StackOverflowError("injected"));
      Listener fine = new Listener(null);
      runtime.submit(
          "bad",
          checked("SELECT COUNT(*) FROM STREAM(5s, TIME) WINDOWING TUMBLING(100, TIME)"),
          failing);
      runtime.submit(
          "good",
          checked("SELECT COUNT(*) FROM STREAM(600, TIME) WINDOWING TUMBLING(200, TIME)"),
          fine);
      assertThat(failing.end.get(10, TimeUnit.SECONDS))
          .contains("StackOverflowError")
          .contains("the other queries go on");
      assertThat(failing.results).hasSize(1); // stopped at its first
      assertThat(fine.end.get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(fine.results.get(fine.results.size() - 1).meta().isFinal()).isTrue();
      assertThat(runtime.problems()).isEmpty(); // the thread lives on
      assertThat(runtime.progress()).doesNotContainKey("bad");
    }
  }

  private static CheckedQuery checked(String bql) {
    return CheckedQuery.check(bql, QueryLimits.DEFAULTS);
  }

  /**
   * A checked query runs as it was checked: the engine runs its very plan (not compiled again from
   * the text) under its limits, not the engine's.
   */
  @Test
  void aCheckedQueryRunsItsOwnPlanUnderItsOwnLimits() throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(200));
    QueryLimits small = QueryLimits.DEFAULTS.withMaxExactGroups(7);
    CheckedQuery q = CheckedQuery.check("SELECT COUNT(*) FROM STREAM(FOREVER)", small);
    try (EmbeddedRuntime runtime =
        EmbeddedRuntime.start(source, EngineConfig.defaults().withWorkers(1).withTickMs(20))) {
      Listener l = new Listener(null);
      runtime.submit("once", q, l);
      List<Query> running = runtime.engine().running();
      assertThat(running).hasSize(1);
      assertThat(running.get(0).plan()).isSameAs(q.plan());
      assertThat(running.get(0).limits()).isSameAs(small);
      runtime.kill("once");
      assertThat(l.end.get(10, TimeUnit.SECONDS)).isEmpty();
    }
  }
}
