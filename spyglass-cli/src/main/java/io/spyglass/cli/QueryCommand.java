package io.spyglass.cli;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.result.Result;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.EngineMetrics;
import io.spyglass.engine.QueryHandle;
import io.spyglass.engine.source.Source;
import io.spyglass.engine.source.Sources;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
      "      'SELECT * FROM STREAM(10000, TIME) LIMIT 5'"
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    List<String> texts;
    try {
      texts = queryTexts();
    } catch (IOException | IllegalArgumentException e) {
      err.println("spyglass: " + e.getMessage());
      err.flush();
      return 1;
    }
    // one reader of every result: hold up the source rather than drop a query whose results wait
    EngineConfig config = EngineConfig.defaults().withResultBackPressure(true);
    if (workers != null) {
      config = config.withWorkers(workers);
    }
    boolean invalid = false;
    for (int i = 0; i < texts.size(); i++) {
      try {
        Query.parse("check", texts.get(i), config.limits(), 0);
      } catch (BqlException e) {
        Errors.print(err, texts.size() > 1 ? "query " + (i + 1) : "", texts.get(i), e);
        invalid = true;
      }
    }
    if (invalid) {
      return SpyglassCommand.BAD_QUERY;
    }
    Source src;
    try {
      src = Sources.open(source);
    } catch (IOException | IllegalArgumentException e) {
      err.println("spyglass: cannot open source " + source + ": " + e.getMessage());
      err.flush();
      return 1;
    }
    // paused until every query runs on the workers: a short file is not over before they start
    try (Engine engine = Engine.startPaused(src, config)) {
      List<QueryHandle> handles = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) {
        handles.add(engine.submit("q" + (i + 1), texts.get(i)));
      }
      for (QueryHandle h : handles) {
        h.awaitRunning(30, TimeUnit.SECONDS);
      }
      engine.resume();
      CountDownLatch printed = new CountDownLatch(1);
      // Ctrl-C: end every query, let the main thread print the final results, then exit.
      Thread onInterrupt =
          new Thread(
              () -> {
                engine.finishAll();
                try {
                  printed.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "spyglass-interrupt");
      Runtime.getRuntime().addShutdownHook(onInterrupt);
      if (duration != null) {
        long ms = parseDuration(duration);
        Thread stopper =
            new Thread(
                () -> {
                  try {
                    if (!printed.await(ms, TimeUnit.MILLISECONDS)) {
                      engine.finishAll();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "spyglass-duration");
        stopper.setDaemon(true);
        stopper.start();
      }
      ResultPrinter printer = new ResultPrinter(System.out, format, texts.size() > 1);
      Progress progress = Progress.forTerminal(engine);
      Printed outcome = printAll(handles, printer, progress, err);
      progress.clear();
      printed.countDown();
      if (outcome.outputClosed()) {
        // the reader of our output went away (| head): stop at once, like other commands do
        return 0;
      }
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
      return outcome.failed() > 0 ? 1 : 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /** What printing every result came to. */
  private record Printed(int failed, boolean outputClosed) {}

  private Printed printAll(
      List<QueryHandle> handles, ResultPrinter printer, Progress progress, PrintWriter err)
      throws InterruptedException {
    List<QueryHandle> open = new ArrayList<>(handles);
    int failed = 0;
    while (!open.isEmpty()) {
      boolean any = false;
      for (int i = 0; i < open.size(); i++) {
        QueryHandle h = open.get(i);
        Result r = h.poll(open.size() == 1 ? 200 : 0, TimeUnit.MILLISECONDS);
        if (r != null) {
          any = true;
          progress.clear();
          if (!printer.print(r)) {
            return new Printed(failed, true);
          }
        } else if (h.isDone()) {
          if (h.error() != null) {
            err.println("spyglass: " + h.id() + ": " + h.error());
            err.flush();
            failed++;
          }
          open.remove(i--);
        }
      }
      progress.update();
      if (!any && open.size() > 1) {
        Thread.sleep(20);
      }
    }
    return new Printed(failed, false);
  }

  private List<String> queryTexts() throws IOException {
    List<String> out = new ArrayList<>();
    if (queriesFile != null) {
      for (String line : Files.readAllLines(queriesFile, StandardCharsets.UTF_8)) {
        String t = line.strip();
        if (!t.isEmpty() && !t.startsWith("#") && !t.startsWith("--")) {
          out.add(t);
        }
      }
    }
    if (bql != null) {
      out.add(bql);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "no query: give one as an argument, or a file of queries with --queries");
    }
    return out;
  }

  static long parseDuration(String text) {
    String t = text.strip().toLowerCase();
    try {
      if (t.endsWith("ms")) {
        return Long.parseLong(t.substring(0, t.length() - 2));
      } else if (t.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1))).toMillis();
      } else if (t.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1))).toMillis();
      } else if (t.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1))).toMillis();
      }
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--duration " + text + " is not a duration; write e.g. 30s, 5m, 1h or 1500ms", e);
    }
  }

  /** A progress line on stderr while queries run on a terminal; nothing when piped. */
  static final class Progress {
    private final Engine engine;
    private final boolean enabled;
    private long lastMs;
    private boolean shown;

    private Progress(Engine engine, boolean enabled) {
      this.engine = engine;
      this.enabled = enabled;
    }

    static Progress forTerminal(Engine engine) {
      return new Progress(engine, System.console() != null);
    }

    void update() {
      if (!enabled) {
        return;
      }
      long now = System.currentTimeMillis();
      if (now - lastMs < 500) {
        return;
      }
      lastMs = now;
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
