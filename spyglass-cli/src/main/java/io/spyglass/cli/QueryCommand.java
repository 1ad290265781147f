package io.spyglass.cli;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.run.RunningQuery;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.EngineMetrics;
import io.spyglass.flink.LocalRun;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.Source;
import io.spyglass.sources.Sources;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description = {
      "Run queries over a stream and print their results as they arrive.",
      "On a bounded source (a file) the command ends after the final results; Ctrl-C ends the"
          + " queries early and prints what they have."
    },
    footer = {
      "",
      "Sources: " + Sources.FORMS,
      "",
      "Examples:",
      "  ./spyglass query --source gen 'SELECT COUNT(*) AS n FROM STREAM(3000, TIME)'",
      "  ./spyglass query --source gen --format json \\",
      "      'SELECT device, COUNT(*) FROM STREAM(5000, TIME) GROUP BY device'",
      "  ./spyglass generate --count 1000 | ./spyglass query --source - \\",
      "      'SELECT TOP(3, browser_name) FROM STREAM(MAX, TIME)'",
      "  ./spyglass query --source kafka://127.0.0.1:9092/events?from=earliest \\",
      "      'SELECT * FROM STREAM(10000, TIME) LIMIT 5'",
      "  ./spyglass query --source gen --sink file:/tmp/results.ndjson \\",
      "      'SELECT COUNT(*) AS n FROM STREAM(3s, TIME)'"
    })
final class QueryCommand implements Callable<Integer> {
  @Parameters(
      paramLabel = "BQL",
      arity = "0..1",
      description = "the query; or give several with --queries")
  String bql;

  @Option(
      names = "--source",
      paramLabel = "SPEC",
      description = "where records come from (default: ${DEFAULT-VALUE}); see Sources below")
  String source = "gen";

  @Option(
      names = "--format",
      description = "table for people, or json: one result object per line (default: table)")
  ResultPrinter.Format format = ResultPrinter.Format.table;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      description = "stop every query after this long, e.g. 30s, 5m, 1500ms")
  String duration;

  @Option(
      names = "--queries",
      paramLabel = "FILE",
      description = "run every query of this file (one BQL query per line) in one pass")
  Path queriesFile;

  @Option(names = "--workers", description = "filter worker threads (default: one per core)")
  Integer workers;

  /** Where the queries run. */
  enum RuntimeKind {
    embedded,
    flink
  }

  @Option(
      names = "--runtime",
      description =
          "embedded (default): in this process; flink: the Spyglass Flink job on a local Flink"
              + " mini cluster, --workers filter subtasks (see docs/flink.md)")
  RuntimeKind runtime = RuntimeKind.embedded;

  @Option(
      names = "--kafka",
      paramLabel = "HOST:PORT",
      description =
          "with --runtime flink: query the Spyglass job running on a Flink cluster through this"
              + " Kafka, instead of a local mini cluster; the job reads its own records topic")
  String kafka;

  @Option(
      names = "--query-topic",
      paramLabel = "TOPIC",
      description = "with --kafka: the job's query topic (default: ${DEFAULT-VALUE})")
  String queryTopic = FlinkQueryClient.DEFAULT_QUERY_TOPIC;

  @Option(
      names = {"--kafka-property", "--kafka-properties"},
      paramLabel = "KEY=VALUE",
      description =
          "a Kafka client setting, e.g. security.protocol=SASL_SSL (repeatable): given, last, to"
              + " the consumer of a kafka:// --source and to the clients of --kafka's topics")
  Map<String, String> kafkaProperties = new LinkedHashMap<>();

  @Option(
      names = "--max-queries",
      paramLabel = "N",
      description = "most queries running at once (default: ${DEFAULT-VALUE})")
  int maxQueries = EngineConfig.defaults().maxQueries();

  @Option(
      names = "--sink",
      paramLabel = "URL",
      description = {
        "also deliver every result to this sink, at least once, as one JSON document keyed by"
            + " query and window (docs/sinks.md): a webhook (http://... or https://..., each"
            + " result POSTed), file:PATH (one line a result), kafka://HOST:PORT/TOPIC (one"
            + " message a result); give it again for more sinks"
      })
  List<String> sinkUrls = new ArrayList<>();

  @Option(
      names = "--sink-wait",
      paramLabel = "TIME",
      description =
          "with --sink: how long the command waits at its end for the sinks to deliver what they"
              + " hold; what is left is dropped and said (default: ${DEFAULT-VALUE})")
  String sinkWait = "30s";

  /** The sinks of {@code --sink}; none until {@link #call} reads them. */
  private CliSinks sinks = CliSinks.of(List.of());

  private long sinkWaitMs;

  /** A query to run, and where it was written: a line of the queries file, or the argument. */
  record QueryText(String text, Path file, int line) {
    String label() {
      return file == null ? "" : file.toString();
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** {@link #kafkaProperties}, checked. */
  private Map<String, Object> kafkaClientProperties = Map.of();

  /** The command's time, and its engine's and source's: the machine's clocks but in tests. */
  SpyglassClock clock = SpyglassClock.system();

  private Sources.SourceOptions sourceOptions() {
    return new Sources.SourceOptions(null, kafkaClientProperties, clock);
  }

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    List<QueryText> texts;
    Long durationMs = null;
    try {
      if (duration != null) {
        durationMs = OptionValues.positiveDuration("--duration", duration);
      }
      OptionValues.atLeast("--max-queries", maxQueries, 1);
      kafkaClientProperties = KafkaProperties.of(kafkaProperties);
      texts = queryTexts();
      sinkWaitMs = OptionValues.duration("--sink-wait", sinkWait);
      sinks = CliSinks.of(sinkUrls);
      if (texts.size() > maxQueries) {
        throw new IllegalArgumentException(
            texts.size()
                + " queries, more than --max-queries "
                + maxQueries
                + " lets run at once; raise --max-queries");
      }
    } catch (IllegalArgumentException e) {
      err.println("spyglass: " + e.getMessage());
      err.flush();
      return USAGE;
    } catch (IOException e) {
      err.println("spyglass: " + describe(e));
      err.flush();
      return 1;
    }
    // one reader of every result: hold up the source rather than drop a query whose results wait
    EngineConfig config =
        EngineConfig.defaults()
            .withResultBackPressure(true)
            .withMaxQueries(maxQueries)
            .withClock(clock);
    if (workers != null) {
      config = config.withWorkers(workers);
    }
    boolean invalid = false;
    List<CheckedQuery> checked = new ArrayList<>(); // compiled once: each runtime runs these plans
    for (QueryText q : texts) {
      try {
        checked.add(CheckedQuery.check(q.text(), config.limits()));
      } catch (BqlException e) {
        Errors.print(err, q.label(), q.text(), Math.max(0, q.line() - 1), e);
        invalid = true;
      }
    }
    if (invalid) {
      return SpyglassCommand.BAD_QUERY;
    }
    if (runtime == RuntimeKind.flink) {
      return runOnFlink(checked, config, durationMs, err);
    }
    Source src;
    try {
      src = Sources.open(source, sourceOptions());
    } catch (RuntimeException e) { // a bad spec, or a Kafka client setting Kafka refused
      err.println("spyglass: cannot open source " + source + ": " + e.getMessage());
      err.flush();
      return 1;
    } catch (IOException e) {
      err.println("spyglass: cannot open source " + source + ": " + describe(e));
      err.flush();
      return 1;
    }
    // this command says the source's failure itself, once: not also in the engine's log
    Configurator.setLevel(Engine.SOURCE_LOGGER, Level.OFF);
    // paused until every query runs on the workers: a short file is not over before they start
    try (Engine engine = Engine.startPaused(src, config)) {
      List<RunningQuery> handles = new ArrayList<>();
      for (int i = 0; i < checked.size(); i++) {
        handles.add(engine.submit("q" + (i + 1), checked.get(i)));
      }
      for (RunningQuery h : handles) {
        h.awaitRunning(30, TimeUnit.SECONDS);
      }
      engine.resume();
      CountDownLatch printed = new CountDownLatch(1);
      finishOnExit(engine::finishAll, printed, durationMs);
      ResultPrinter printer = new ResultPrinter(System.out, format, texts.size() > 1);
      Progress progress = Progress.forTerminal(engine, clock);
      List<RunningQuery> running = new ArrayList<>();
      handles.forEach(h -> running.add(sinks.tap(h)));
      SourceReport sourceReport = new SourceReport(engine, source, progress, err, clock);
      Printed outcome = printAll(running, printer, progress, sourceReport, err, clock);
      progress.clear();
      boolean delivered = outcome.outputClosed() || sinks.finish(sinkWaitMs, err);
      printed.countDown();
      if (outcome.outputClosed()) {
        // the reader of our output went away (| head): stop at once, like other commands do
        return 0;
      }
      sourceReport.report(true);
      if (engine.failure() != null) {
        err.println("spyglass: the engine failed: " + engine.failureMessage());
        err.flush();
        return 1;
      }
      if (engine.sourceError() != null) {
        err.println("spyglass: source " + source + " failed: " + engine.sourceError());
        err.flush();
        return 1;
      }
      return outcome.failed() > 0 || !delivered ? 1 : 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      sinks.close();
    }
  }

  /** What printing every result came to. */
  record Printed(int failed, boolean outputClosed) {}

  /** The same queries, sources and output, on the Flink job in a local mini cluster. */
  private int runOnFlink(
      List<CheckedQuery> checked, EngineConfig config, Long durationMs, PrintWriter err) {
    if (kafka != null) {
      return runOnFlinkJob(checked, durationMs, err);
    }
    if (!source.equals("-") && !source.startsWith("stdin")) {
      // the job opens the source itself: check it here first, for the same error as embedded
      try {
        Sources.open(source, sourceOptions()).close();
      } catch (IOException | RuntimeException e) {
        err.println("spyglass: cannot open source " + source + ": " + e.getMessage());
        err.flush();
        return 1;
      }
    }
    List<Query> queries = new ArrayList<>();
    long now = clock.millis();
    for (int i = 0; i < checked.size(); i++) {
      queries.add(checked.get(i).toQuery("q" + (i + 1), now));
    }
    try (LocalRun run = LocalRun.start(source, queries, config.workers(), kafkaClientProperties)) {
      for (RunningQuery q : run.queries()) {
        q.awaitRunning(60, TimeUnit.SECONDS);
      }
      CountDownLatch printed = new CountDownLatch(1);
      finishOnExit(run::finishAll, printed, durationMs);
      ResultPrinter printer = new ResultPrinter(System.out, format, checked.size() > 1);
      List<RunningQuery> running = new ArrayList<>();
      run.queries().forEach(q -> running.add(sinks.tap(q)));
      SourceReport sourceReport =
          new SourceReport(
              () -> null, () -> null, run::badInput, source, Progress.NONE, err, clock);
      Printed outcome = printAll(running, printer, Progress.NONE, sourceReport, err, clock);
      System.out.flush();
      boolean delivered = outcome.outputClosed() || sinks.finish(sinkWaitMs, err);
      printed.countDown();
      if (outcome.outputClosed()) {
        return 0;
      }
      // the filters' last word on what they skipped comes as the job ends
      run.finishAll();
      run.awaitEnd(30, TimeUnit.SECONDS);
      sourceReport.report(true);
      return outcome.failed() > 0 || !delivered ? 1 : 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (Exception e) {
      err.println("spyglass: the Flink job could not start: " + e.getMessage());
      err.flush();
      return 1;
    } finally {
      sinks.close();
    }
  }

  /** The queries on a Spyglass job that runs on a Flink cluster, through its Kafka topics. */
  private int runOnFlinkJob(List<CheckedQuery> checked, Long durationMs, PrintWriter err) {
    if (spec.commandLine().getParseResult().hasMatchedOption("--source")) {
      err.println(
          "spyglass: --source does not go with --kafka: the job reads its own records topic");
      err.flush();
      return 1;
    }
    String instance = "cli-" + ProcessHandle.current().pid();
    FlinkQueryClient client;
    try {
      client =
          FlinkQueryClient.connect(
              FlinkQueryClient.Settings.of(kafka, instance)
                  .withQueryTopic(queryTopic)
                  .withKafkaProperties(kafkaClientProperties));
    } catch (RuntimeException e) {
      err.println("spyglass: cannot reach the job: " + e.getMessage());
      err.flush();
      return 1;
    }
    try (client) {
      List<RunningQuery> queries = new ArrayList<>();
      for (int i = 0; i < checked.size(); i++) {
        queries.add(client.submit("q" + (i + 1), checked.get(i), false, List.of()));
      }
      for (RunningQuery q : queries) {
        if (!q.awaitRunning(30, TimeUnit.SECONDS)) {
          err.println(
              "spyglass: the job did not start "
                  + q.id()
                  + " within 30 s: is it running and reading "
                  + queryTopic
                  + "?");
          err.flush();
          queries.forEach(RunningQuery::kill);
          return 1;
        }
      }
      CountDownLatch printed = new CountDownLatch(1);
      finishOnExit(() -> queries.forEach(RunningQuery::finish), printed, durationMs);
      ResultPrinter printer = new ResultPrinter(System.out, format, checked.size() > 1);
      List<RunningQuery> running = new ArrayList<>();
      queries.forEach(q -> running.add(sinks.tap(q)));
      Printed outcome = printAll(running, printer, Progress.NONE, null, err, clock);
      System.out.flush();
      boolean delivered = outcome.outputClosed() || sinks.finish(sinkWaitMs, err);
      printed.countDown();
      return !outcome.outputClosed() && (outcome.failed() > 0 || !delivered) ? 1 : 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      sinks.close();
    }
  }

  /**
   * Ctrl-C ends every query and lets the main thread print the final results; so does the end of
   * {@code --duration}.
   */
  private void finishOnExit(Runnable finishAll, CountDownLatch printed, Long durationMs) {
    Thread onInterrupt =
        new Thread(
            () -> {
              if (printed.getCount() == 0) {
                return; // a normal exit: every result is printed, the runtime may be closed
              }
              finishAll.run();
              try {
                printed.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "spyglass-interrupt");
    Runtime.getRuntime().addShutdownHook(onInterrupt);
    if (durationMs != null) {
      long ms = durationMs;
      Thread stopper =
          new Thread(
              () -> {
                try {
                  if (!printed.await(ms, TimeUnit.MILLISECONDS)) {
                    finishAll.run();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "spyglass-duration");
      stopper.setDaemon(true);
      stopper.start();
    }
  }

  /** How often every query is looked at, whether or not it said it has news. */
  private static final long SWEEP_NS = TimeUnit.SECONDS.toNanos(1);

  /**
   * Prints every query's results as they come, until every query has ended. A query says when it
   * has news (a result, or its end), and only those are read: with thousands of queries that wait
   * for a needle, nothing is polled in vain. Results ready at the same time are printed in the
   * order of the queries; every query is also looked at once a second, in case word was missed.
   */
  static Printed printAll(
      List<RunningQuery> handles,
      ResultPrinter printer,
      Progress progress,
      SourceReport sourceReport,
      PrintWriter err,
      SpyglassClock clock)
      throws InterruptedException {
    // sourceReport: null where the runtime reads the source itself (Flink)
    Map<RunningQuery, Integer> open = new IdentityHashMap<>();
    LinkedBlockingQueue<RunningQuery> news = new LinkedBlockingQueue<>();
    for (int i = 0; i < handles.size(); i++) {
      RunningQuery h = handles.get(i);
      open.put(h, i);
      h.onUpdate(() -> news.offer(h));
    }
    news.addAll(handles); // what was queued before they could say so
    int failed = 0;
    long sweptAt = clock.nanos();
    List<RunningQuery> due = new ArrayList<>();
    while (!open.isEmpty()) {
      due.clear();
      RunningQuery first = news.poll(200, TimeUnit.MILLISECONDS);
      if (first != null) {
        due.add(first);
        news.drainTo(due);
      }
      if (clock.nanos() - sweptAt > SWEEP_NS) {
        due.addAll(open.keySet());
        sweptAt = clock.nanos();
      }
      due.sort(Comparator.comparingInt(h -> open.getOrDefault(h, Integer.MAX_VALUE)));
      RunningQuery last = null;
      for (RunningQuery h : due) {
        if (h == last || !open.containsKey(h)) {
          continue;
        }
        last = h;
        while (true) {
          // done is read before the poll: a query queues its last result before it ends, so a
          // poll after it was seen done drains everything (read after, a result queued between
          // the two would be dropped)
          boolean done = h.isDone();
          Result r = h.poll(0, TimeUnit.MILLISECONDS);
          if (r != null) {
            progress.clear();
            if (!printer.print(r)) {
              return new Printed(failed, true);
            }
            continue;
          }
          if (done) {
            if (h.error() != null) {
              if (sourceReport == null || !sourceReport.explains(h.error())) {
                err.println("spyglass: " + h.id() + ": " + h.error());
                err.flush();
              }
              failed++;
            }
            open.remove(h);
          }
          break;
        }
      }
      progress.update();
      if (sourceReport != null) {
        sourceReport.report(false);
      }
    }
    return new Printed(failed, false);
  }

  private List<QueryText> queryTexts() throws IOException {
    List<QueryText> out = new ArrayList<>();
    if (queriesFile != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(queriesFile, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new IOException("cannot read the queries file: " + describe(e), e);
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (i == 0 && line.startsWith("\uFEFF")) {
          line = line.substring(1); // a byte order mark, as some editors write
        }
        String t = line.strip();
        if (!t.isEmpty() && !t.startsWith("#") && !t.startsWith("--")) {
          out.add(new QueryText(t, queriesFile, i + 1));
        }
      }
    }
    if (bql != null) {
      out.add(new QueryText(bql, null, 0));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          queriesFile == null
              ? "no query: give one as an argument, or a file of queries with --queries"
              : "no query in " + queriesFile + ": write one BQL query per line");
    }
    return out;
  }

  /** What went wrong with a file, for people. */
  static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file: " + ((NoSuchFileException) e).getFile();
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied: " + ((AccessDeniedException) e).getFile();
    }
    if (e instanceof MalformedInputException || e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  /** Exit code of a bad option value, as picocli gives for unknown options. */
  static final int USAGE = 2;

  /**
   * Lines on stderr about the source: input that could not be read (how much, why and where the
   * first were; while queries run, at most every 10 s when there is more, and at the end if
   * anything is new), and what keeps it from reading (when it starts and when it ends).
   */
  static final class SourceReport {
    private static final long EVERY_NS = TimeUnit.SECONDS.toNanos(10);
    private final Supplier<String> sourceProblem;
    private final Supplier<String> sourceError;
    private final Supplier<BadInput.Snapshot> badInput;
    private final String source;
    private final Progress progress;
    private final PrintWriter err;
    private final SpyglassClock clock;
    private long reported;
    private long lastNanos;
    private String problem;

    SourceReport(
        Engine engine, String source, Progress progress, PrintWriter err, SpyglassClock clock) {
      this(
          engine::sourceProblem,
          engine::sourceError,
          engine::badInput,
          source,
          progress,
          err,
          clock);
    }

    /** For a runtime that reads the source itself (Flink): what it tells of its input. */
    SourceReport(
        Supplier<String> sourceProblem,
        Supplier<String> sourceError,
        Supplier<BadInput.Snapshot> badInput,
        String source,
        Progress progress,
        PrintWriter err,
        SpyglassClock clock) {
      this.clock = clock;
      this.lastNanos = clock.nanos();
      this.sourceProblem = sourceProblem;
      this.sourceError = sourceError;
      this.badInput = badInput;
      this.source = source;
      this.progress = progress;
      this.err = err;
    }

    /**
     * Whether a query's error is the source's failure, which the command says once at the end
     * rather than once for each query.
     */
    boolean explains(String queryError) {
      String e = sourceError.get();
      return e != null && queryError.contains(e);
    }

    void report(boolean atEnd) {
      String p = sourceProblem.get();
      if (!Objects.equals(p, problem)) {
        say(p != null ? p + "; results miss its records while this lasts" : "reading again");
        problem = p;
      }
      long now = clock.nanos();
      if (!atEnd && now - lastNanos < EVERY_NS) {
        return;
      }
      lastNanos = now;
      BadInput.Snapshot s = badInput.get();
      if (s.total() > reported) {
        reported = s.total();
        say(s.toString());
      }
    }

    private void say(String what) {
      progress.clear();
      err.println("spyglass: " + source + ": " + what);
      err.flush();
    }
  }

  /** A progress line on stderr while queries run on a terminal; nothing when piped. */
  static final class Progress {
    /** No progress line (the Flink runtime). */
    static final Progress NONE = new Progress(null, false, SpyglassClock.system());

    /** Most often the line is redrawn: twice a second. */
    private static final long EVERY_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private final Engine engine;
    private final boolean enabled;
    private final SpyglassClock clock;
    private long lastNanos;
    private boolean shown;

    private Progress(Engine engine, boolean enabled, SpyglassClock clock) {
      this.engine = engine;
      this.enabled = enabled;
      this.clock = clock;
      this.lastNanos = clock.nanos() - EVERY_NS;
    }

    static Progress forTerminal(Engine engine, SpyglassClock clock) {
      return new Progress(engine, System.console() != null, clock);
    }

    void update() {
      if (!enabled) {
        return;
      }
      long nanos = clock.nanos();
      if (nanos - lastNanos < EVERY_NS) {
        return;
      }
      lastNanos = nanos;
      long now = clock.millis();
      EngineMetrics m = engine.metrics();
      long matched = m.queries().values().stream().mapToLong(s -> s.matched()).sum();
      long left = Long.MAX_VALUE;
      for (Query q : engine.running()) {
        left = Math.min(left, q.endTimeMs(QueryLimits.DEFAULTS) - now);
      }
      String time = left == Long.MAX_VALUE ? "" : " | " + Math.max(0, left / 1000) + " s left";
      System.err.printf(
          "\r%,d records read | %,d matched | %d running%s   ",
          m.recordsRead(), matched, m.runningQueries(), time);
      System.err.flush();
      shown = true;
    }

    void clear() {
      if (shown) {
        System.err.print("\r" + " ".repeat(78) + "\r");
        System.err.flush();
        shown = false;
      }
    }
  }
}
