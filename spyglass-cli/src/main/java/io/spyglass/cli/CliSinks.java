package io.spyglass.cli;

import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.RunningQuery;
import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.QuerySinks;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.SinkSpecException;
import io.spyglass.sinks.SinkStats;
import io.spyglass.sinks.Sinks;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The sinks of {@code spyglass query --sink}: every query's results, as they are printed, also go
 * to each sink (the command is its user's own process: any sink well written is allowed). A
 * document names its query {@code q1-RUN}, {@code RUN} a random id of this run, so that the keys of
 * two runs never meet at a receiver that deduplicates on them. At the end the command waits for the
 * sinks to deliver (at most {@code --sink-wait}) and says what they could not.
 */
final class CliSinks implements AutoCloseable {
  private static final char[] RUN_CHARS = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();

  private final List<SinkSpec> specs;
  private final Sinks sinks;
  private final String run;
  private final List<QuerySinks> queries = new ArrayList<>();

  private CliSinks(List<SinkSpec> specs) {
    this.specs = specs;
    this.sinks =
        specs.isEmpty() ? null : new Sinks(DeliverySettings.DEFAULTS, SinkPolicy.unrestricted());
    SecureRandom random = new SecureRandom();
    char[] c = new char[8];
    for (int i = 0; i < c.length; i++) {
      c[i] = RUN_CHARS[random.nextInt(RUN_CHARS.length)];
    }
    this.run = new String(c);
  }

  /**
   * The sinks of the {@code --sink} values given.
   *
   * @throws IllegalArgumentException when one is not a sink, saying what to write
   */
  static CliSinks of(List<String> urls) {
    List<SinkSpec> specs = new ArrayList<>();
    for (String u : urls) {
      try {
        SinkSpec s = SinkSpec.parseUrl(u);
        SinkPolicy.unrestricted().check(s, "--sink");
        specs.add(s);
      } catch (SinkSpecException e) {
        throw new IllegalArgumentException(
            "--sink " + u + ": " + e.getMessage() + "; " + e.resolution(), e);
      }
    }
    return new CliSinks(specs);
  }

  boolean isEmpty() {
    return specs.isEmpty();
  }

  /** {@code q}, whose every result polled is also offered to the sinks. */
  RunningQuery tap(RunningQuery q) {
    if (sinks == null) {
      return q;
    }
    QuerySinks out = sinks.forQuery(q.id() + "-" + run, specs);
    synchronized (queries) {
      queries.add(out);
    }
    return new Tapped(q, out);
  }

  /** A running query whose every result polled is also offered to its sinks. */
  private record Tapped(RunningQuery q, QuerySinks out) implements RunningQuery {
    @Override
    public String id() {
      return q.id();
    }

    @Override
    public Query query() {
      return q.query();
    }

    @Override
    public Result poll(long timeout, TimeUnit unit) throws InterruptedException {
      Result r = q.poll(timeout, unit);
      if (r != null) {
        out.offer(r);
      }
      return r;
    }

    @Override
    public boolean isDone() {
      return q.isDone();
    }

    @Override
    public boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
      return q.awaitDone(timeout, unit);
    }

    @Override
    public boolean awaitRunning(long timeout, TimeUnit unit) throws InterruptedException {
      return q.awaitRunning(timeout, unit);
    }

    @Override
    public String error() {
      return q.error();
    }

    @Override
    public long emitted() {
      return q.emitted();
    }

    @Override
    public Optional<QueryStats> stats() {
      return q.stats();
    }

    @Override
    public void kill() {
      q.kill();
    }

    @Override
    public void finish() {
      q.finish();
    }

    @Override
    public void onUpdate(Runnable listener) {
      q.onUpdate(listener);
    }
  }

  /** Every query's results, offered to the sinks. */
  List<RunningQuery> tap(List<RunningQuery> qs) {
    List<RunningQuery> out = new ArrayList<>();
    qs.forEach(q -> out.add(tap(q)));
    return out;
  }

  /**
   * Waits at most {@code waitMs} for the sinks to deliver what they hold, then says on {@code err}
   * what each sink could not deliver.
   *
   * @return whether every document was delivered
   */
  boolean finish(long waitMs, PrintWriter err) {
    if (sinks == null) {
      return true;
    }
    try {
      if (!sinks.awaitIdle(0)) {
        err.println("spyglass: waiting up to " + waitMs / 1000 + " s for the sinks to deliver");
        err.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sinks.close(waitMs);
    boolean all = true;
    for (int i = 0; i < specs.size(); i++) {
      long delivered = 0;
      long dropped = 0;
      String error = null;
      synchronized (queries) {
        for (QuerySinks q : queries) {
          SinkStats s = q.stats().get(i);
          delivered += s.delivered();
          dropped += s.dropped();
          if (s.failing() || s.dropped() > 0) {
            error = s.lastError();
          }
        }
      }
      if (dropped > 0) {
        all = false;
        err.println(
            "spyglass: sink "
                + specs.get(i)
                + ": "
                + dropped
                + " not delivered, "
                + delivered
                + " delivered ("
                + error
                + ")");
      }
    }
    err.flush();
    return all;
  }

  @Override
  public void close() {
    if (sinks != null) {
      sinks.close(0);
    }
  }
}
