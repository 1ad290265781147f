package io.spyglass.service.health;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the service can do its job, for {@code GET /api/health}: {@link Status#UP}, or {@link
 * Status#DEGRADED} or {@link Status#DOWN} with a sentence for each reason. Parts of the service
 * tell it what they cannot do in two ways: they {@link #report} a problem under a key when they
 * meet it and {@link #clear} it when it is over (a database write failed, then one succeeded), or
 * they add a {@link #probe} that is asked at each check (is a thread alive, has the source ended).
 *
 * <p>Problems are plain sentences for operators, shown without a token: they say what does not work
 * and what to do, never a path, a host or an exception's text (those go to the log).
 *
 * <p>Thread-safe.
 */
public final class Health {
  private static final Logger LOG = LoggerFactory.getLogger(Health.class);

  /** The service's state, best first. */
  public enum Status {
    /** Everything works. */
    UP,
    /**
     * Part of the service does not work (e.g. the source ended, the database cannot be written).
     */
    DEGRADED,
    /** The service cannot do its job (e.g. a core thread died): a supervisor should restart it. */
    DOWN
  }

  /** One reason the service is not {@link Status#UP}. */
  public record Problem(Status status, String message) {
    public Problem {
      if (status == Status.UP || message == null || message.isBlank()) {
        throw new IllegalArgumentException("a problem is DEGRADED or DOWN, with a message");
      }
    }

    public static Problem down(String message) {
      return new Problem(Status.DOWN, message);
    }

    public static Problem degraded(String message) {
      return new Problem(Status.DEGRADED, message);
    }
  }

  /** The outcome of a check: the worst status, and every problem, the worst first. */
  public record Report(Status status, List<String> problems) {
    public Report {
      problems = List.copyOf(problems);
    }

    public boolean isUp() {
      return status == Status.UP;
    }
  }

  private final Map<String, Problem> reported = new LinkedHashMap<>();
  private final List<Supplier<List<Problem>>> probes = new CopyOnWriteArrayList<>();

  /**
   * Reports a problem under {@code key} (e.g. {@code "database"}), replacing an earlier report of
   * the same key; it lasts until {@link #clear}ed.
   */
  public void report(String key, Problem problem) {
    Problem before;
    synchronized (reported) {
      before = reported.put(key, problem);
    }
    if (!problem.equals(before)) {
      LOG.warn("health {}: {}", problem.status(), problem.message());
    }
  }

  /** The problem reported under {@code key} is over; nothing happens when there is none. */
  public void clear(String key) {
    Problem before;
    synchronized (reported) {
      before = reported.remove(key);
    }
    if (before != null) {
      LOG.info("health: no longer {}: {}", before.status(), before.message());
    }
  }

  /**
   * Adds a check asked at each {@link #check}: it returns the problems it sees now (empty when
   * none), at once and without blocking. One that throws counts as a problem of its own.
   */
  public void probe(Supplier<List<Problem>> probe) {
    probes.add(probe);
  }

  /** The state now: every reported problem and every probe's. */
  public Report check() {
    List<Problem> all;
    synchronized (reported) {
      all = new ArrayList<>(reported.values());
    }
    for (Supplier<List<Problem>> p : probes) {
      try {
        List<Problem> found = p.get();
        if (found != null) {
          all.addAll(found);
        }
      } catch (RuntimeException e) {
        LOG.warn("a health check failed", e);
        all.add(Problem.degraded("A health check failed; see the service's log"));
      }
    }
    all.sort(Comparator.comparing(Problem::status).reversed());
    Status worst = all.isEmpty() ? Status.UP : all.get(0).status();
    return new Report(worst, all.stream().map(Problem::message).distinct().toList());
  }
}
