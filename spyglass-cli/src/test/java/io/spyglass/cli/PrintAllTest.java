package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.RunningQuery;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The query command's printing loop, with queries that end while it reads them. */
class PrintAllTest {
  /**
   * A query that queues its final result and ends between two calls of the reader: the reader's
   * first poll finds nothing, and by the time it asks whether the query is done, it is. The result
   * must still be printed (it once was dropped: the query was taken for done and empty).
   */
  private static final class EndsDuringPoll implements RunningQuery {
    private final String id;
    private final Queue<Result> queue = new ArrayDeque<>();
    private boolean done;
    private boolean ended;
    private Runnable listener = () -> {};

    EndsDuringPoll(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public Result poll(long timeout, TimeUnit unit) {
      Result r = queue.poll();
      if (r == null && !ended) {
        // the engine queues the final result and ends the query right after this poll looked
        ended = true;
        queue.add(result(id));
        done = true;
        listener.run();
      }
      return r;
    }

    @Override
    public boolean isDone() {
      return done;
    }

    @Override
    public String error() {
      return null;
    }

    @Override
    public void onUpdate(Runnable listener) {
      this.listener = listener;
    }

    @Override
    public Query query() {
      return Query.parse(
          id, "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)", QueryLimits.DEFAULTS, 1);
    }

    @Override
    public boolean awaitDone(long timeout, TimeUnit unit) {
      return done;
    }

    @Override
    public boolean awaitRunning(long timeout, TimeUnit unit) {
      return true;
    }

    @Override
    public long emitted() {
      return ended ? 1 : 0;
    }

    @Override
    public Optional<QueryStats> stats() {
      return Optional.empty();
    }

    @Override
    public void kill() {}

    @Override
    public void finish() {}
  }

  private static Result result(String id) {
    Meta meta =
        new Meta(
            id,
            "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)",
            1L,
            Optional.of(2L),
            Optional.empty(),
            Map.of(),
            List.of(),
            true);
    return new Result(List.of(Map.of("n", 7L)), meta);
  }

  @Test
  void aResultQueuedAsTheQueryEndsIsPrinted() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ResultPrinter printer =
        new ResultPrinter(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), ResultPrinter.Format.json, true);
    StringWriter err = new StringWriter();

    QueryCommand.Printed outcome =
        QueryCommand.printAll(
            List.of(new EndsDuringPoll("q1"), new EndsDuringPoll("q2")),
            printer,
            QueryCommand.Progress.NONE,
            null,
            new PrintWriter(err),
            SpyglassClock.system());

    assertThat(outcome.failed()).isZero();
    assertThat(err.toString()).isEmpty();
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out.lines().toList())
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).contains("\"id\":\"q1\""))
        .anySatisfy(l -> assertThat(l).contains("\"id\":\"q2\""));
  }
}
