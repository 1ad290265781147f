package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.RunningQuery;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A query on the job, as its submitter sees it: the core's running query, as the engine's is. */
class RemoteQueryTest {
  private static final String BQL = "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)";

  private final List<String> killed = new CopyOnWriteArrayList<>();
  private final List<String> finished = new CopyOnWriteArrayList<>();
  private final Replies replies = new Replies(2, killed::add, finished::add);

  private RemoteQuery register() {
    return replies.register(Query.parse("q", BQL, QueryLimits.DEFAULTS, 0), "a:q");
  }

  private static Result result(boolean last) {
    return new Result(
        List.of(Map.of("n", 3L)),
        new Meta("a:q", BQL, 0, Optional.empty(), Optional.empty(), Map.of(), List.of(), last));
  }

  @Test
  void itRunsEndsAndCountsAsTheJobSays() throws Exception {
    RemoteQuery q = register();
    RunningQuery running = q;
    AtomicInteger updates = new AtomicInteger();
    running.onUpdate(updates::incrementAndGet);
    assertThat(running.awaitRunning(0, TimeUnit.MILLISECONDS)).isFalse();
    replies.accept(Reply.running("a:q"));
    assertThat(running.awaitRunning(0, TimeUnit.MILLISECONDS)).isTrue();
    replies.accept(Reply.progress("a:q", new Reply.Progress(10, 4, 1, 2)));
    assertThat(running.stats()).contains(new QueryStats(10, 4, 1));
    replies.accept(Reply.result("a:q", result(true)));
    Result r = running.poll(1, TimeUnit.SECONDS);
    assertThat(r.meta().queryId()).isEqualTo("q"); // as the submitter named it
    assertThat(running.emitted()).isEqualTo(1);
    replies.accept(Reply.ended("a:q", null));
    assertThat(running.awaitDone(1, TimeUnit.SECONDS)).isTrue();
    assertThat(running.error()).isNull();
    assertThat(running.poll(1, TimeUnit.SECONDS)).isNull(); // done and read: no wait
    assertThat(updates.get()).isGreaterThanOrEqualTo(4); // running, progress, result, end
    running.finish();
    running.kill();
    assertThat(finished).containsExactly("a:q");
    assertThat(killed).containsExactly("a:q");
  }

  @Test
  void aPollWaitsForTheNextResultAndAnEndWakesIt() throws Exception {
    RemoteQuery q = register();
    Thread t =
        new Thread(
            () -> {
              replies.accept(Reply.result("a:q", result(false)));
              replies.accept(Reply.ended("a:q", "the job stopped"));
            });
    t.start();
    assertThat(q.poll(10, TimeUnit.SECONDS)).isNotNull();
    assertThat(q.awaitDone(10, TimeUnit.SECONDS)).isTrue();
    assertThat(q.poll(10, TimeUnit.SECONDS)).isNull();
    assertThat(q.error()).isEqualTo("the job stopped");
    t.join();
  }

  @Test
  void aReaderThatFallsBehindIsCutOffAndTheQueryKilled() {
    RemoteQuery q = register();
    for (int i = 0; i < 3; i++) {
      replies.accept(
          Reply.result(
              "a:q",
              new Result(
                  List.of(),
                  new Meta(
                      "a:q",
                      BQL,
                      0,
                      Optional.empty(),
                      Optional.of(new Meta.WindowMeta(i + 1, "TUMBLING(1000, TIME)", 0, 0, 1)),
                      Map.of(),
                      List.of(),
                      false))));
    }
    assertThat(q.isDone()).isTrue();
    assertThat(q.error()).contains("fell behind by 2 results");
    assertThat(killed).containsExactly("a:q");
  }

  @Test
  void itsWaitsAreTimedByTheClientsClock() throws Exception {
    // each look at the monotonic clock finds a minute gone: a wait of a minute ends at once
    AtomicLong nanos = new AtomicLong();
    SpyglassClock jumping =
        new SpyglassClock(() -> 1_700_000_000_000L, () -> nanos.addAndGet(60_000_000_000L));
    Replies onTheClock = new Replies(2, killed::add, finished::add, jumping);
    RemoteQuery q = onTheClock.register(Query.parse("q", BQL, QueryLimits.DEFAULTS, 0), "a:q");
    assertThat(q.poll(60, TimeUnit.SECONDS)).isNull();
    assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).isFalse();
    assertThat(q.awaitSync(1, 60, TimeUnit.SECONDS)).isFalse();
    assertThat(nanos.get()).as("the clock was read").isPositive();
  }
}
