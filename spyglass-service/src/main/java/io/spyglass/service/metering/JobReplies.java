package io.spyglass.service.metering;

import io.spyglass.core.result.Result;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the replies of standing queries run on the Flink job ({@code MeteringRun} of {@code serve
 * --runtime flink --source http}) to the standing queries' database, each as it comes: a final
 * window by (query, window start), replacing the same window; a late update once by the query's
 * count of late documents ({@code meta.eventTime.late}). The job delivers replies at least once (a
 * restore delivers again those after its checkpoint): a repeat changes nothing. Each reply is
 * written before {@link #reply} returns, on the thread of the job's sink, so that a checkpoint of
 * the job that follows a reply never completes before the reply is in the database.
 *
 * <p>Open windows are not written: the job sends a window when it is final. A query that ends with
 * an error is recorded as failed (a restart does not start it). Replies of a query neither defined
 * in the database nor running here (deleted meanwhile) write nothing.
 */
public final class JobReplies {
  private static final Logger LOG = LoggerFactory.getLogger(JobReplies.class);

  /**
   * A reply of the job about one standing query: a result (a final window, a late update, or any
   * other, ignored), its end, an open window a look shows, a look's answer, or its state's size.
   *
   * @param queryId the query's id as submitted to the job
   * @param result the result (or the open window); null for an end or a number
   * @param error why it ended; null for a result, or an end without error
   * @param kind what the reply says
   * @param number the look's number ({@link Kind#LOOKED}) or the state's bytes ({@link
   *     Kind#SAVED}); 0 for others
   */
  public record Reply(String queryId, Result result, String error, Kind kind, long number) {
    /** What a reply says. */
    public enum Kind {
      /** A final window or a late update (or another result, ignored). */
      RESULT,
      /** The query ended, with an error or without. */
      ENDED,
      /** An open window, as the look numbered by the next {@link #LOOKED} shows it. */
      OPEN,
      /** The look {@code number} answered: its open windows came before. */
      LOOKED,
      /** The query's state written for a checkpoint of the job: {@code number} bytes. */
      SAVED
    }

    public Reply(String queryId, Result result, String error) {
      this(queryId, result, error, result != null ? Kind.RESULT : Kind.ENDED, 0);
    }

    public static Reply result(String queryId, Result result) {
      return new Reply(queryId, java.util.Objects.requireNonNull(result), null);
    }

    public static Reply ended(String queryId, String error) {
      return new Reply(queryId, null, error);
    }

    public static Reply open(String queryId, Result result) {
      return new Reply(queryId, java.util.Objects.requireNonNull(result), null, Kind.OPEN, 0);
    }

    public static Reply looked(String queryId, long look) {
      return new Reply(queryId, null, null, Kind.LOOKED, look);
    }

    public static Reply saved(String queryId, long bytes) {
      return new Reply(queryId, null, null, Kind.SAVED, bytes);
    }
  }

  private final StandingStore store;
  private final Predicate<String> running;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong repeats = new AtomicLong();

  /** Replies written for the queries the database defines. */
  public JobReplies(StandingStore store) {
    this(store, id -> false);
  }

  /**
   * @param running whether a query's id on the job runs here (started on the job, its row perhaps
   *     not written yet): its final windows are written even before its row is
   */
  public JobReplies(StandingStore store, Predicate<String> running) {
    this.store = store;
    this.running = running;
  }

  /**
   * The id on the job of the standing query {@code id} defined at {@code createdMs}: a query
   * deleted and defined again under the same name is another query on the job.
   */
  static String jobId(String id, long createdMs) {
    return id + "@" + createdMs;
  }

  /** The service's id of the query that runs on the job under {@code jobId}. */
  static String serviceId(String jobId) {
    int at = jobId.lastIndexOf('@');
    return at < 0 ? jobId : jobId.substring(0, at);
  }

  /**
   * When the query that runs on the job under {@code jobId} was defined; -1 when it does not say.
   */
  static long createdMs(String jobId) {
    int at = jobId.lastIndexOf('@');
    try {
      return at < 0 ? -1 : Long.parseLong(jobId.substring(at + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The name of a standing query that runs on the job under {@code jobId}. */
  static String name(String jobId) {
    String id = serviceId(jobId);
    return id.startsWith(StandingQuery.ID_PREFIX)
        ? id.substring(StandingQuery.ID_PREFIX.length())
        : id;
  }

  /** Writes one reply of the job; replies that hold no window or end are ignored. */
  public void reply(Reply r) {
    String name = name(r.queryId());
    if (r.kind() != Reply.Kind.RESULT && r.kind() != Reply.Kind.ENDED) {
      return;
    }
    if (r.result() != null) {
      result(r.queryId(), name, r.result());
    } else if (r.error() != null
        && (running.test(r.queryId())
            || store.list().stream()
                .anyMatch(s -> s.name().equals(name) && matches(s.createdMs(), r.queryId())))) {
      LOG.warn("standing query {} stopped on the Flink job: {}", name, r.error());
      store.fail(name, r.error());
    }
  }

  /** Records a standing query as failed: a restart does not start it. */
  void markFailed(String name, String error) {
    store.fail(name, error);
  }

  private static boolean matches(long createdMs, String jobId) {
    long at = createdMs(jobId);
    return at < 0 || at == createdMs;
  }

  private void result(String id, String name, Result result) {
    WindowUpdate w = WindowUpdate.of(result);
    if (w.lateUpdate()) {
      long queryLate = result.meta().eventTime().map(t -> t.late()).orElse(-1L);
      if (store.addLateOnce(name, createdMs(id), w.start(), w.late(), queryLate)) {
        written.incrementAndGet();
      } else {
        repeats.incrementAndGet();
      }
    } else if (w.isFinal()) {
      if (store.putFinal(
          name,
          createdMs(id),
          new StandingStore.Window(w.start(), w.end(), w.records(), w.late(), w.error()),
          running.test(id))) {
        written.incrementAndGet();
      }
    }
  }

  /** Final windows and late updates written so far (a window delivered again counts again). */
  public long written() {
    return written.get();
  }

  /** Late updates delivered again and not written. */
  public long repeats() {
    return repeats.get();
  }
}
