package io.spyglass.service.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.User;
import io.spyglass.service.metering.StandingQueries;
import io.spyglass.service.metering.StandingStore;
import io.spyglass.sinks.SinkDocument;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Alerts on standing queries: each evaluates the final windows of its standing query, in order, as
 * the checkpoints write them, and delivers the events it finds through its sink.
 *
 * <p>Exactly once per window: an alert's cursor (the last window evaluated), the events of a window
 * and its groups' states are written in one transaction, and a window is evaluated only after its
 * cursor; final windows are durable and never change (but for their late count) once a checkpoint
 * wrote them. So a restart, even after {@code kill -9}, evaluates each window once, and an event
 * (alert, group, window) is recorded once. Events are delivered from that table (an outbox) at
 * least once, each under its own key: a delivery cut short by a crash is sent again with the same
 * key after the restart.
 *
 * <p>Thread-safe: one thread owns the alerts (evaluation, delivery, changes); callers wait for it.
 */
public final class Alerts implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Alerts.class);

  /** Windows read at once per alert. */
  private static final int WINDOWS_AT_ONCE = 100;

  /** How often alerts look for windows and deliveries without being woken: a second. */
  private static final long TICK_MS = 1000;

  /** The longest wait before an event that failed is tried again. */
  private static final long MAX_BACKOFF_MS = 60_000;

  /** Refused: what is wrong with the request, as an HTTP status and a body. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String resolution;
    private final String field;
    private final String limit;
    private final transient List<BqlError> errors;

    Refused(int status, String message, String resolution) {
      this(status, message, resolution, null, null, List.of());
    }

    Refused(
        int status,
        String message,
        String resolution,
        String field,
        String limit,
        List<BqlError> errors) {
      super(message);
      this.status = status;
      this.resolution = resolution;
      this.field = field;
      this.limit = limit;
      this.errors = List.copyOf(errors);
    }

    public int status() {
      return status;
    }

    public String resolution() {
      return resolution;
    }

    /** The field of the request's body that is wrong ({@code condition.having}); or null. */
    public String field() {
      return field;
    }

    /** The option whose limit was reached ({@code max-alerts-per-user}); or null. */
    public String limit() {
      return limit;
    }

    /**
     * Where in the field's text it is wrong (a condition's BQL); empty when that does not apply.
     */
    public List<BqlError> errors() {
      return errors;
    }
  }

  /**
   * An alert as listed.
   *
   * @param state {@code ok}, {@code firing} (a group is) or {@code muted}
   * @param firing the groups firing, their labels
   * @param lastWindowStart the start of the last final window evaluated; null before the first
   * @param lastWindowEnd its end
   * @param mutedUntil until when it sends nothing; 0 when it is not muted
   * @param sink its sink as defined
   * @param counts what became of its events (those kept)
   * @param dropped events forgotten before they were delivered
   * @param error why it does not evaluate (its standing query is gone); null when it does
   */
  public record Info(
      String name,
      String standingQuery,
      boolean ownsQuery,
      String owner,
      long createdMs,
      String state,
      List<Map<String, String>> firing,
      Long lastWindowStart,
      Long lastWindowEnd,
      long mutedUntil,
      JsonNode condition,
      String conditionText,
      String format,
      long quietPeriodMs,
      Map<String, String> labels,
      JsonNode sink,
      AlertStore.Counts counts,
      long dropped,
      String lastError,
      String error) {}

  /** An alert with its newest events, newest first. */
  public record Detail(Info info, List<AlertStore.Event> history) {}

  /** An alert as it runs; confined to the owning thread. */
  private static final class Running {
    AlertStore.Stored stored;
    final AlertSpec spec;

    /** Its sink as checked; null when the operator no longer allows it (nothing is sent). */
    SinkSpec sink;

    Map<String, AlertStore.Group> groups;
    long lastSeq;

    /** The standing query's text the condition was compiled for. */
    String compiledFor;

    Shape shape;
    Condition condition;
    String error;
    boolean inFlight;
    long retryAtMs;
    int failures;
    String lastError;
    long cursorStart;
    Long cursorEnd;
    long mutedUntil;
    long dropped;

    Running(AlertStore.Stored stored) {
      this.stored = stored;
      this.spec = AlertSpec.fromJson(stored.spec());
      this.cursorStart = stored.cursorStart();
      this.cursorEnd = stored.cursorEnd();
      this.mutedUntil = stored.mutedUntil();
      this.dropped = stored.dropped();
    }

    String name() {
      return stored.name();
    }
  }

  private final AlertStore store;
  private final StandingStore windows;
  private final StandingQueries standing;
  private final Sinks sinks;
  private final QueryLimits limits;
  private final AlertSettings settings;
  private final LongSupplier clock;
  private final Map<String, Running> alerts = new LinkedHashMap<>();
  private final ScheduledExecutorService owner;
  private final AtomicBoolean woken = new AtomicBoolean();
  private volatile boolean closed;

  /** The alerts by state as of the last look ({@link #states()}), for metrics. */
  private volatile Map<String, Long> states = Map.of();

  /** Events recorded since the start, by state ({@code firing}, {@code resolved}). */
  private final ConcurrentHashMap<String, LongAdder> events = new ConcurrentHashMap<>();

  private Alerts(
      AlertStore store,
      StandingStore windows,
      StandingQueries standing,
      Sinks sinks,
      QueryLimits limits,
      AlertSettings settings,
      LongSupplier clock) {
    this.store = store;
    this.windows = windows;
    this.standing = standing;
    this.sinks = sinks;
    this.limits = limits;
    this.settings = settings;
    this.clock = clock;
    this.owner =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spyglass-alerts");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Restores the alerts of {@code store} and starts evaluating them: first the windows written
   * while the service was down (or since the last evaluation before a crash), then each checkpoint
   * of {@code standing}.
   *
   * @param windows where the standing queries' final windows are read
   * @param sinks what the alerts' events are sent through (the service's, within its policy)
   */
  public static Alerts start(
      AlertStore store,
      StandingStore windows,
      StandingQueries standing,
      Sinks sinks,
      QueryLimits limits,
      AlertSettings settings,
      LongSupplier clock) {
    Alerts a = new Alerts(store, windows, standing, sinks, limits, settings, clock);
    a.call(
        () -> {
          for (AlertStore.Stored s : store.list()) {
            Running r = new Running(s);
            try {
              r.sink = Definition.sink(r.spec.sink(), sinks);
            } catch (Refused e) {
              // the operator no longer allows its target: it evaluates, nothing is sent
              r.lastError = "its sink is not allowed any more: " + e.getMessage();
              LOG.warn("alert {}: {}", s.name(), r.lastError);
            }
            r.groups = store.groups(s.name());
            r.lastSeq = store.lastSeq(s.name());
            a.alerts.put(s.name(), r);
          }
          return null;
        });
    standing.afterCheckpoint(a::wake);
    a.owner.scheduleWithFixedDelay(a::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
    return a;
  }

  /** Asks the owning thread to evaluate and deliver soon: new windows were written. */
  public void wake() {
    if (!closed && woken.compareAndSet(false, true)) {
      try {
        owner.execute(this::tick);
      } catch (RejectedExecutionException e) {
        // stopping
      }
    }
  }

  private void tick() {
    woken.set(false);
    for (Running r : new ArrayList<>(alerts.values())) {
      try {
        evaluate(r);
        deliver(r);
      } catch (RuntimeException e) {
        if (!closed) {
          LOG.warn("alert {}: {}", r.name(), e.toString());
        }
      }
    }
    look();
  }

  /** Counts the alerts by state for {@link #states()}. Owning thread. */
  private void look() {
    long now = clock.getAsLong();
    Map<String, Long> n = new LinkedHashMap<>();
    for (String state : List.of("ok", "firing", "muted", "error")) {
      n.put(state, 0L);
    }
    for (Running r : alerts.values()) {
      String state =
          r.error != null
              ? "error"
              : r.mutedUntil > now
                  ? "muted"
                  : r.groups.values().stream().anyMatch(AlertStore.Group::firing) ? "firing" : "ok";
      n.merge(state, 1L, Long::sum);
    }
    states = Map.copyOf(n);
  }

  /**
   * The alerts by state as of their thread's last look (at most a second ago): {@code ok}, {@code
   * firing} (a group is), {@code muted}, {@code error} (its standing query is gone). Cheap.
   */
  public Map<String, Long> states() {
    return states;
  }

  /** Events recorded since the start, {@code state} {@code firing} or {@code resolved}. */
  public long events(String state) {
    LongAdder a = events.get(state);
    return a == null ? 0 : a.sum();
  }

  /** Compiles the condition for the standing query as it is now; false when it cannot. */
  private boolean compiled(Running r) {
    Optional<StandingQueries.Info> q = standing.find(r.spec.standingQuery());
    if (q.isEmpty()) {
      r.error =
          "its standing query "
              + r.spec.standingQuery()
              + " was deleted: it evaluates nothing until one of that name is defined again";
      return false;
    }
    String text = q.get().query();
    if (!text.equals(r.compiledFor)) {
      try {
        Definition.Compiled c = Definition.compile(text, r.spec.condition(), limits, clock);
        r.shape = c.shape();
        r.condition = c.condition();
        r.compiledFor = text;
      } catch (Refused e) {
        r.error =
            "its condition does not fit standing query "
                + r.spec.standingQuery()
                + " as it is now: "
                + e.getMessage();
        r.compiledFor = null;
        return false;
      }
    }
    r.error = null;
    return true;
  }

  /** Evaluates the final windows written after the alert's cursor, in order. */
  private void evaluate(Running r) {
    if (!compiled(r)) {
      return;
    }
    while (!closed) {
      List<StandingStore.Window> ws =
          windows.windowsAfter(r.spec.standingQuery(), r.cursorStart, WINDOWS_AT_ONCE);
      for (StandingStore.Window w : ws) {
        long now = clock.getAsLong();
        Evaluator.Outcome o;
        try {
          o =
              Evaluator.evaluate(
                  r.name(),
                  r.shape,
                  r.condition,
                  r.spec.quietPeriodMs(),
                  r.mutedUntil > now,
                  r.spec.format() == Payloads.Format.ALERTMANAGER,
                  new Evaluator.Window(w.start(), w.end(), w.records(), w.error()),
                  r.groups,
                  r.lastSeq + 1,
                  now);
        } catch (IllegalArgumentException e) {
          LOG.warn("alert {}: window at {} skipped: {}", r.name(), w.start(), e.getMessage());
          o = new Evaluator.Outcome(List.of(), List.of(), List.of());
        }
        r.dropped +=
            store.evaluated(
                r.name(),
                w.start(),
                w.end(),
                o.events(),
                o.groups(),
                o.forgotten(),
                settings.maxEventsPerAlert());
        r.cursorStart = w.start();
        r.cursorEnd = w.end();
        r.lastSeq += o.events().size();
        for (AlertStore.Event e : o.events()) {
          events.computeIfAbsent(e.state(), k -> new LongAdder()).increment();
        }
        for (AlertStore.Group g : o.groups()) {
          r.groups.put(g.id(), g);
        }
        o.forgotten().forEach(r.groups::remove);
      }
      if (ws.size() < WINDOWS_AT_ONCE) {
        return;
      }
    }
  }

  /** Sends the alert's oldest event still to deliver, unless one is on its way. */
  private void deliver(Running r) {
    long now = clock.getAsLong();
    if (r.inFlight || r.sink == null || now < r.retryAtMs || closed) {
      return;
    }
    List<AlertStore.Event> next = store.pending(r.name(), 1);
    if (next.isEmpty()) {
      return;
    }
    AlertStore.Event e = next.get(0);
    byte[] doc = Payloads.of(e, r.spec, settings.linkTo(r.name()));
    r.inFlight = true;
    CompletableFuture<Sinks.Attempt> sent;
    try {
      sent = sinks.sendOnce(r.sink, SinkDocument.of(e.key(), doc));
    } catch (RuntimeException x) {
      sent = CompletableFuture.completedFuture(new Sinks.Attempt(false, true, x.getMessage()));
    }
    sent.whenComplete(
        (attempt, failure) -> {
          Sinks.Attempt a =
              failure != null ? new Sinks.Attempt(false, true, failure.toString()) : attempt;
          try {
            owner.execute(() -> delivered(r, e, a));
          } catch (RejectedExecutionException stopping) {
            // sent again after the restart, with the same key, when it was not marked
          }
        });
  }

  private void delivered(Running r, AlertStore.Event e, Sinks.Attempt a) {
    r.inFlight = false;
    if (alerts.get(r.name()) != r) {
      return; // deleted meanwhile
    }
    long now = clock.getAsLong();
    if (a.delivered()) {
      store.delivered(e, now);
      r.failures = 0;
      r.lastError = null;
    } else if (!a.again()) {
      store.refused(e, a.error()); // the receiver refuses it for good: the next one goes on
      r.lastError = a.error();
    } else {
      store.failed(e, a.error());
      r.failures++;
      r.lastError = a.error();
      // exponential, with jitter: 0.5 s, 1 s, 2 s ... at most a minute
      long cap = Math.min(MAX_BACKOFF_MS, 500L << Math.min(r.failures - 1, 16));
      r.retryAtMs = now + ThreadLocalRandom.current().nextLong(cap / 2, cap + 1);
    }
    deliver(r);
  }

  /**
   * Defines an alert from a request's body: {@code {"name", "standingQuery" | "query", "condition",
   * "sink", "format"?, "quietPeriod"?, "labels"?}}. With {@code query}, a standing query of the
   * alert's name is defined too, and deleted with it.
   *
   * @throws Refused 400/422 for a body that is not one (the field and, for a condition, the
   *     position), 409 when the name is taken, 403 over the user's cap
   * @throws StandingQueries.Refused when the standing query cannot be defined
   * @throws BqlException when the query is not valid
   */
  public Info create(ObjectNode body, User by) {
    Definition d = Definition.parse(body, by, standing, limits, clock);
    String name = d.name();
    String query = d.query();
    String standingQuery = d.standingQuery();
    String queryText = d.queryText();
    Definition.Compiled compiled = d.compiled();
    AlertSpec spec = d.spec();
    SinkSpec sink = Definition.sink(spec.sink(), sinks);
    return call(
        () -> {
          check(name, by);
          if (query != null) {
            // named after the alert; its own checks (admins only, its cap, the name) apply
            standing.create(name, query, by);
          }
          long cursor = windows.lastWindowStart(standingQuery).orElse(Long.MIN_VALUE);
          AlertStore.Stored s =
              new AlertStore.Stored(
                  name,
                  standingQuery,
                  query != null,
                  by.name(),
                  clock.getAsLong(),
                  spec.toJson(),
                  cursor,
                  null,
                  0,
                  0);
          try {
            store.insert(s);
          } catch (AlertStore.Taken | RuntimeException e) {
            if (query != null) {
              standing.delete(name, by); // defined for it: it goes with it
            }
            throw e instanceof AlertStore.Taken ? taken(name) : (RuntimeException) e;
          }
          Running r = new Running(s);
          r.sink = sink;
          r.groups = new LinkedHashMap<>();
          r.shape = compiled.shape();
          r.condition = compiled.condition();
          r.compiledFor = queryText;
          alerts.put(name, r);
          return info(r);
        });
  }

  /** The name is free, and {@code by} may define one more. Owning thread. */
  private void check(String name, User by) {
    if (alerts.containsKey(name)) {
      throw taken(name);
    }
    long mine = alerts.values().stream().filter(a -> a.stored.owner().equals(by.name())).count();
    if (!by.admin() && mine >= settings.maxPerUser()) {
      throw new Refused(
          403,
          by.name()
              + " has "
              + mine
              + " alerts, the most one user defines here ("
              + settings.maxPerUser()
              + ", --max-alerts-per-user)",
          "Delete one of yours first (DELETE /api/alerts/NAME), or ask an admin",
          null,
          "max-alerts-per-user",
          List.of());
    }
  }

  private static Refused taken(String name) {
    return new Refused(
        409,
        "An alert named " + name + " exists",
        "Choose another name, or DELETE /api/alerts/" + name + " first");
  }

  /** The alerts {@code by} sees (their own; an admin every one), oldest first. */
  public List<Info> list(User by) {
    return call(
        () -> {
          List<Info> out = new ArrayList<>();
          for (Running r : alerts.values()) {
            if (by.canSee(r.stored.owner())) {
              out.add(info(r));
            }
          }
          return out;
        });
  }

  /**
   * An alert with its newest {@code limit} events.
   *
   * @throws Refused 404 when there is none, 403 when {@code by} is not its owner or an admin
   */
  public Detail get(String name, int limit, User by) {
    return call(
        () -> {
          Running r = mine(name, by, "reads");
          return new Detail(info(r), store.history(name, limit));
        });
  }

  /**
   * Mutes an alert until {@code untilMs} (events are recorded, none is sent; what was still to send
   * is not sent either); 0 unmutes it.
   */
  public Info mute(String name, long untilMs, User by) {
    return call(
        () -> {
          Running r = mine(name, by, "mutes");
          store.mute(name, untilMs);
          r.mutedUntil = untilMs;
          return info(r);
        });
  }

  /** When it is now, by the alerts' clock (epoch ms). */
  public long now() {
    return clock.getAsLong();
  }

  /** Forgets an alert and its events; the standing query defined with it goes too. */
  public void delete(String name, User by) {
    call(
        () -> {
          Running r = mine(name, by, "deletes");
          store.delete(name);
          alerts.remove(name);
          if (r.stored.ownsQuery() && standing.find(name).isPresent()) {
            try {
              standing.delete(name, by);
            } catch (StandingQueries.Refused e) {
              LOG.warn("alert {}: its standing query stays: {}", name, e.getMessage());
            }
          }
          return null;
        });
  }

  private Running mine(String name, User by, String verb) {
    Running r = alerts.get(name);
    if (r == null) {
      throw new Refused(404, "No alert named " + name, "See GET /api/alerts for your alerts");
    }
    if (!by.canSee(r.stored.owner())) {
      throw new Refused(
          403,
          "Alert "
              + name
              + " belongs to "
              + r.stored.owner()
              + "; only its owner or an admin "
              + verb
              + " it",
          "Ask its owner or an admin");
    }
    return r;
  }

  private Info info(Running r) {
    long now = clock.getAsLong();
    List<Map<String, String>> firing = new ArrayList<>();
    for (AlertStore.Group g : r.groups.values()) {
      if (g.firing()) {
        Map<String, String> labels = new LinkedHashMap<>();
        try {
          Evaluator.JSON
              .readTree(g.labels())
              .properties()
              .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new IllegalStateException(e);
        }
        firing.add(labels);
      }
    }
    boolean muted = r.mutedUntil > now;
    String state = muted ? "muted" : firing.isEmpty() ? "ok" : "firing";
    boolean evaluated = r.cursorEnd != null;
    return new Info(
        r.name(),
        r.spec.standingQuery(),
        r.stored.ownsQuery(),
        r.stored.owner(),
        r.stored.createdMs(),
        state,
        firing,
        evaluated ? r.cursorStart : null,
        r.cursorEnd,
        muted ? r.mutedUntil : 0,
        r.spec.condition(),
        r.spec.conditionText(),
        r.spec.format().wire,
        r.spec.quietPeriodMs(),
        r.spec.labels(),
        r.spec.sink(),
        store.counts(r.name()),
        r.dropped,
        r.lastError,
        r.error);
  }

  @FunctionalInterface
  private interface Task<T> {
    T run();
  }

  /** Runs {@code task} on the owning thread and waits for it. */
  private <T> T call(Task<T> task) {
    if (closed) {
      throw new Refused(503, "The service is stopping", "Try again once it has started again");
    }
    Future<T> f =
        owner.submit(
            () -> {
              return task.run();
            });
    try {
      return f.get(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused(503, "Interrupted", "Try again");
    } catch (TimeoutException e) {
      throw new Refused(503, "The alerts did not answer within 120 s", "Try again");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Stops evaluating and delivering: what was not delivered is, after the restart. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    owner.shutdown();
    try {
      owner.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    owner.shutdownNow();
    store.close();
  }
}
