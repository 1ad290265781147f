package io.spyglass.sinks;

import io.spyglass.core.SpyglassClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every sink of a process: the threads that send (shared by all sinks, never the engine's), the
 * clients they share (one HTTP client, one Kafka producer per cluster, one appender per file), the
 * bound on what all sinks buffer together, the number of attempts under way at once, and the
 * counters by type of sink.
 *
 * <pre>{@code
 * try (Sinks sinks = new Sinks(DeliverySettings.DEFAULTS, SinkPolicy.unrestricted())) {
 *   QuerySinks q = sinks.forQuery("q1", List.of(SinkSpec.parseUrl("https://hooks.example.com/x")));
 *   q.offer(result);      // returns at once
 *   sinks.awaitIdle(10_000);
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class Sinks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Sinks.class);

  /** What the counters by type count. */
  public enum Count {
    DELIVERED,
    RETRIED,
    DROPPED
  }

  private final DeliverySettings settings;
  private final SinkPolicy policy;
  private final SpyglassClock clock;
  private final ScheduledThreadPoolExecutor pool;
  private final Set<Delivery> all = ConcurrentHashMap.newKeySet();
  private final Map<String, Producer<byte[], byte[]>> producers = new ConcurrentHashMap<>();
  private final Map<Path, FileSender.Appender> files = new ConcurrentHashMap<>();
  private final LongAdder[][] counts =
      new LongAdder[SinkSpec.Type.values().length][Count.values().length];
  private final AtomicLong buffered = new AtomicLong();
  private final Object slots = new Object();

  /** The targets with a delivery attempting or waiting, by {@link #targetOf}; guarded by slots. */
  private final Map<String, Target> targets = new HashMap<>();

  /**
   * The targets with deliveries waiting and room for another attempt, served in turn; guarded by
   * slots.
   */
  private final ArrayDeque<Target> inLine = new ArrayDeque<>();

  /** Attempts under way, over all targets; guarded by slots. */
  private int inFlight;

  private volatile HttpClient http;
  private volatile Http1Client plain;
  private volatile boolean closed;

  /** Sinks under {@code policy}, within {@code settings}, timed by the machine's clock. */
  public Sinks(DeliverySettings settings, SinkPolicy policy) {
    this(settings, policy, SpyglassClock.system());
  }

  /**
   * @param clock the clock whose monotonic count times retries' deadlines, requests' timeouts and
   *     waits (the sinks stamp no moments: they read no wall clock)
   */
  public Sinks(DeliverySettings settings, SinkPolicy policy, SpyglassClock clock) {
    this.settings = settings;
    this.policy = policy;
    this.clock = clock;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ScheduledThreadPoolExecutor(
            settings.threads(),
            r -> {
              Thread t = new Thread(r, "spyglass-sink-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.setRemoveOnCancelPolicy(true);
    for (LongAdder[] row : counts) {
      for (int i = 0; i < row.length; i++) {
        row[i] = new LongAdder();
      }
    }
  }

  public DeliverySettings settings() {
    return settings;
  }

  public SinkPolicy policy() {
    return policy;
  }

  /**
   * Checks a sink before anything is sent to it: its form, and whether this process may deliver to
   * it.
   *
   * @param field where it was written, for the error ({@code sinks[0]})
   * @throws SinkSpecException saying what is wrong and what to do
   */
  public SinkSpec check(SinkSpec spec, String field) {
    return policy.check(spec, field);
  }

  /**
   * A delivery to one sink. A sink the policy does not allow (a standing query's, restored after
   * the operator changed the allow-list) gets a delivery that gives every document up, saying why.
   */
  public Delivery open(SinkSpec spec) {
    if (closed) {
      throw new IllegalStateException("the sinks are closed");
    }
    Sender sender;
    String target = targetOf(spec);
    try {
      SinkSpec resolved = policy.check(spec, "sink");
      target = targetOf(resolved);
      sender = sender(resolved);
    } catch (SinkSpecException e) {
      String error = "not allowed here: " + e.getMessage();
      sender = doc -> CompletableFuture.completedFuture(Sender.Outcome.giveUp(error));
    } catch (RuntimeException e) { // a client that cannot be made (a Kafka cluster not resolved)
      String error = "cannot reach it: " + Sender.describe(e);
      sender = doc -> CompletableFuture.completedFuture(Sender.Outcome.giveUp(error));
    }
    Delivery d = new Delivery(this, spec, target, sender, settings);
    all.add(d);
    return d;
  }

  /**
   * The deliveries of one query's results to each of {@code specs}, its documents keyed by {@code
   * queryId} (see {@link QuerySinks}).
   */
  public QuerySinks forQuery(String queryId, List<SinkSpec> specs) {
    return forQuery(queryId, specs, List.of());
  }

  /**
   * As {@link #forQuery(String, List)}, but the sinks whose checked form ({@link #check}) is in
   * {@code writtenElsewhere} are written by the runtime itself (the Flink job writes Kafka sinks
   * with its replies): their deliveries send nothing and count each result the caller offers (it
   * read it, so the runtime wrote it) as delivered.
   */
  public QuerySinks forQuery(
      String queryId, List<SinkSpec> specs, List<SinkSpec> writtenElsewhere) {
    List<Delivery> ds = new ArrayList<>();
    for (SinkSpec s : specs) {
      SinkSpec resolved;
      try {
        resolved = policy.check(s, "sink");
      } catch (SinkSpecException e) {
        resolved = null;
      }
      if (resolved != null && writtenElsewhere.contains(resolved)) {
        Delivery d =
            new Delivery(
                this,
                s,
                targetOf(resolved),
                doc -> CompletableFuture.completedFuture(Sender.Outcome.DELIVERED),
                settings);
        all.add(d);
        ds.add(d);
      } else {
        ds.add(open(s));
      }
    }
    return new QuerySinks(queryId, ds);
  }

  /**
   * What one attempt of {@link #sendOnce} came to.
   *
   * @param delivered whether the sink took the document
   * @param again whether another attempt may succeed (a timeout, a 5xx, 408, 429); false when the
   *     sink refused the document for good (another 4xx) or it was delivered
   * @param error what went wrong, for people; null when delivered
   */
  public record Attempt(boolean delivered, boolean again, String error) {}

  /**
   * Sends one document to {@code spec} now, once, on the clients every sink shares, outside any
   * buffer: for a caller that keeps what it sends until a sink takes it and tries again itself (an
   * alert's outbox). Counted in the counters by type as other deliveries are. Returns at once.
   *
   * @throws SinkSpecException when this process may not deliver to {@code spec}
   */
  public CompletableFuture<Attempt> sendOnce(SinkSpec spec, SinkDocument doc) {
    if (closed) {
      throw new IllegalStateException("the sinks are closed");
    }
    Sender sender = sender(policy.check(spec, "sink"));
    CompletableFuture<Sender.Outcome> f;
    try {
      f = sender.send(doc);
    } catch (RuntimeException e) {
      f = CompletableFuture.completedFuture(Sender.Outcome.retry(Sender.describe(e)));
    }
    return f.handle(
        (o, t) -> {
          Sender.Outcome out = t != null ? Sender.Outcome.retry(Sender.describe(t)) : o;
          Count c =
              switch (out.kind()) {
                case DELIVERED -> Count.DELIVERED;
                case RETRY -> Count.RETRIED;
                case GIVE_UP -> Count.DROPPED;
              };
          counted(spec.type(), c, 1);
          return new Attempt(
              out.kind() == Sender.Outcome.Kind.DELIVERED,
              out.kind() == Sender.Outcome.Kind.RETRY,
              out.error());
        });
  }

  private Sender sender(SinkSpec s) {
    return switch (s.type()) {
      case WEBHOOK -> {
        URI uri = URI.create(s.target());
        yield Http1Client.takes(uri)
            ? new WebhookSender(null, plain(), uri, settings.requestTimeoutMs())
            : new WebhookSender(http(), null, uri, settings.requestTimeoutMs());
      }
      case FILE ->
          new FileSender(
              files.computeIfAbsent(Path.of(s.target()), p -> new FileSender.Appender(p, policy)));
      case KAFKA ->
          new KafkaSender(producers.computeIfAbsent(s.bootstrap(), this::producer), s.target());
    };
  }

  private HttpClient http() {
    HttpClient c = http;
    if (c == null) {
      synchronized (this) {
        c = http;
        if (c == null) {
          c =
              HttpClient.newBuilder()
                  .executor(pool)
                  .connectTimeout(Duration.ofMillis(Math.min(settings.requestTimeoutMs(), 5_000)))
                  .followRedirects(HttpClient.Redirect.NEVER)
                  .version(HttpClient.Version.HTTP_1_1)
                  .build();
          http = c;
        }
      }
    }
    return c;
  }

  private Http1Client plain() {
    Http1Client c = plain;
    if (c == null) {
      synchronized (this) {
        c = plain;
        if (c == null) {
          c = new Http1Client("spyglass-sink-http", clock);
          plain = c;
        }
      }
    }
    return c;
  }

  private Producer<byte[], byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "spyglass-sinks");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    long timeout = settings.requestTimeoutMs();
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeout));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeout + 5_000));
    // a missing topic's metadata is waited for on a sending thread: not for long
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(Math.min(timeout, 5_000)));
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  long nanoTime() {
    return clock.nanos();
  }

  /** Holds {@code bytes} of all sinks' buffers; false when they would go over their bound. */
  boolean reserve(long bytes) {
    while (true) {
      long now = buffered.get();
      if (now > 0 && now + bytes > settings.maxBytesTotal()) {
        return false;
      }
      if (buffered.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    buffered.addAndGet(-bytes);
  }

  void counted(SinkSpec.Type type, Count what, long n) {
    counts[type.ordinal()][what.ordinal()].add(n);
  }

  /**
   * What the bound on attempts per target counts together: a webhook's scheme, host and port (one
   * receiver, one pool of connections), a file, a Kafka cluster.
   */
  static String targetOf(SinkSpec s) {
    return switch (s.type()) {
      case WEBHOOK -> {
        try {
          URI u = URI.create(s.target());
          String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
          int port = u.getPort() >= 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
          yield "webhook " + scheme + "://" + u.getHost() + ":" + port;
        } catch (IllegalArgumentException e) {
          yield "webhook " + s.target();
        }
      }
      case FILE -> "file " + s.target();
      case KAFKA -> "kafka " + s.bootstrap();
    };
  }

  /** One target's attempts under way and its deliveries waiting for a slot. Guarded by slots. */
  private static final class Target {
    final String key;
    final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    int inFlight;

    /** Whether it is in line for a slot. */
    boolean queued;

    Target(String key) {
      this.key = key;
    }
  }

  /** Puts {@code t} in line for a slot if it has deliveries waiting and room. Guarded by slots. */
  private void enqueue(Target t) {
    if (!t.queued && !t.waiting.isEmpty() && t.inFlight < settings.maxInFlightPerTarget()) {
      t.queued = true;
      inLine.addLast(t);
    }
  }

  /** A delivery has something to send: it gets a slot now, or waits for one. */
  void ready(Delivery d) {
    synchronized (slots) {
      Target t = targets.computeIfAbsent(d.target(), Target::new);
      if (inFlight >= settings.maxInFlight()
          || t.inFlight >= settings.maxInFlightPerTarget()
          || !t.waiting.isEmpty()) {
        t.waiting.addLast(d);
        enqueue(t);
        return;
      }
      inFlight++;
      t.inFlight++;
    }
    execute(d);
  }

  /**
   * A delivery's attempt is over: its slot goes to the next delivery waiting, the targets taking
   * turns (it waits again, behind the others of its target, if it has more).
   */
  void done(Delivery d, boolean again) {
    Delivery next = null;
    List<Delivery> more = null;
    synchronized (slots) {
      Target t = targets.get(d.target());
      inFlight--;
      t.inFlight--;
      if (again) {
        t.waiting.addLast(d);
      }
      enqueue(t);
      while (inFlight < settings.maxInFlight()) {
        Target n = inLine.pollFirst();
        if (n == null) {
          break;
        }
        n.queued = false;
        if (n.waiting.isEmpty() || n.inFlight >= settings.maxInFlightPerTarget()) {
          continue;
        }
        Delivery x = n.waiting.pollFirst();
        inFlight++;
        n.inFlight++;
        enqueue(n);
        if (next == null) {
          next = x;
        } else {
          if (more == null) {
            more = new ArrayList<>();
          }
          more.add(x);
        }
      }
      if (t.inFlight == 0 && t.waiting.isEmpty()) {
        targets.remove(t.key);
      }
    }
    if (next != null) {
      execute(next);
    }
    if (more != null) {
      more.forEach(this::execute);
    }
    if (!again && d.released() && d.idle()) {
      forget(d);
    }
  }

  private void execute(Delivery d) {
    try {
      pool.execute(d::attempt);
    } catch (RejectedExecutionException e) {
      synchronized (slots) {
        inFlight--; // stopped: what it holds is counted as dropped by close
        Target t = targets.get(d.target());
        if (t != null) {
          t.inFlight--;
        }
      }
    }
  }

  void retryLater(Delivery d, long delayMs) {
    try {
      pool.schedule(() -> ready(d), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // stopped: what it holds is counted as dropped by close
    }
  }

  void forget(Delivery d) {
    all.remove(d);
  }

  /** Documents delivered, retried or dropped so far by sinks of {@code type}. */
  public long count(SinkSpec.Type type, Count what) {
    return counts[type.ordinal()][what.ordinal()].sum();
  }

  /** Sinks whose last attempt failed, now. */
  public int failing() {
    int n = 0;
    for (Delivery d : all) {
      if (d.failing()) {
        n++;
      }
    }
    return n;
  }

  /** Bytes of documents buffered by all sinks now. */
  public long bufferedBytes() {
    return buffered.get();
  }

  /**
   * Waits until no sink has a document buffered or being sent.
   *
   * @return whether they were all idle within the timeout
   */
  public boolean awaitIdle(long timeoutMs) throws InterruptedException {
    long deadline = clock.deadlineIn(timeoutMs);
    while (true) {
      boolean idle = true;
      for (Delivery d : all) {
        if (!d.idle()) {
          idle = false;
          break;
        }
      }
      if (idle) {
        return true;
      }
      if (clock.nanos() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
  }

  /**
   * Takes no more documents, delivers what is buffered for up to {@code timeoutMs}, then drops the
   * rest (logged, with how many of each sink) and closes the clients.
   *
   * @return the documents dropped for lack of time
   */
  public int close(long timeoutMs) {
    if (closed) {
      return 0;
    }
    closed = true;
    for (Delivery d : all) {
      d.close();
    }
    try {
      awaitIdle(timeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pool.shutdownNow();
    int dropped = 0;
    int sinks = 0;
    for (Delivery d : all) {
      int n = d.abandon();
      if (n > 0) {
        if (++sinks <= LOGGED_SINKS) {
          SinkStats s = d.stats();
          LOG.warn(
              "sink {}: {} documents were not delivered before the stop (delivered {}, dropped {}"
                  + " in all)",
              d.spec(),
              n,
              s.delivered(),
              s.dropped());
        }
        dropped += n;
      }
    }
    Http1Client p = plain;
    if (p != null) {
      p.close();
    }
    producers.values().forEach(pr -> pr.close(Duration.ofSeconds(5)));
    files.values().forEach(FileSender.Appender::close);
    if (dropped > 0) {
      LOG.warn(
          "sinks: {} documents of {} sinks dropped at the stop (after waiting {} ms for them){}",
          dropped,
          sinks,
          timeoutMs,
          sinks > LOGGED_SINKS ? "; the first " + LOGGED_SINKS + " sinks are listed above" : "");
    }
    return dropped;
  }

  /** Sinks a stop names one by one in the log; the others are counted. */
  static final int LOGGED_SINKS = 10;

  /** Stops within a few seconds: {@link #close(long)} with 5 s. */
  @Override
  public void close() {
    close(5_000);
  }
}
