package io.spyglass.scenarios;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code spyglass bench <scenario>}: runs one scenario after a published performance study and
 * prints the machine, then Markdown tables; writes CSV and PNG charts to the output folder.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Run a benchmark scenario against the embedded engine (flink, bullet-kafka: the Flink job"
          + " beside it, reading Kafka): tables on stdout, CSV and PNG charts in --out.",
      "Scenarios: latency, find, raw-queries, data-scaling, query-scaling, query-kinds, pipeline,"
          + " metering, service, versus-bullet, end-to-end, flink, bullet-kafka.",
      "And report: rewrite the generated tables of a document (docs/performance.md,"
          + " docs/scaling.md) from a run's results."
    },
    footer = {
      "",
      "Examples:",
      "  ./spyglass bench latency --quick",
      "  ./spyglass bench query-scaling --rate 68400 --out /tmp/qs",
      "  ./spyglass bench service --quick",
      "  ./spyglass bench flink --quick                  (starts a Kafka broker of its own)",
      "  ./spyglass bench flink --kafka 127.0.0.1:9092   (uses an existing one)",
      "  ./spyglass bench bullet-kafka --quick           (Bullet's tests 1-6 from Kafka)",
      "Run one benchmark at a time: numbers from concurrent runs share the cores and are wrong."
    })
public final class BenchCommand implements Callable<Integer> {
  @Parameters(
      index = "0",
      paramLabel = "SCENARIO",
      description = "one of: ${COMPLETION-CANDIDATES}",
      completionCandidates = Names.class)
  String scenario;

  @Option(names = "--quick", description = "short runs and few points (seconds, for tests)")
  boolean quick;

  @Option(
      names = "--full",
      description =
          "more repetitions than the default sizes (which keep the published studies' query"
              + " counts, record sizes and rates): longer probes, more search steps, every worker"
              + " count")
  boolean full;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "folder for CSV and PNG files (default: bench-results/<scenario>)")
  Path out;

  @Option(
      names = "--rate",
      description =
          "records/s for scenarios run at a fixed rate (default: the rate of the Bullet test the"
              + " scenario repeats: 76,000 for find, 85,000 for raw-queries, 68,400 otherwise;"
              + " bullet-kafka: the live stream of tests 1-2, by default 76,000 or half what the"
              + " slower runtime read in test 3, whichever is less)")
  long rate;

  @Option(
      names = "--record-bytes",
      description = "target size of generated records (default: ${DEFAULT-VALUE})",
      defaultValue = "1843")
  int recordBytes;

  @Option(
      names = "--workers",
      split = ",",
      description = "worker counts to try (default: 1..cores)")
  List<Integer> workers = new ArrayList<>();

  @Option(names = "--queries", split = ",", description = "simultaneous query counts to try")
  List<Integer> queries = new ArrayList<>();

  @Option(names = "--sizes", split = ",", description = "record sizes in bytes to try")
  List<Integer> sizes = new ArrayList<>();

  @Option(
      names = "--probe-ms",
      description = "measured time of each run (default: 3000, --full 5000, quick 800)")
  long probeMs;

  @Option(
      names = "--latency-bound-ms",
      description = "mean read-to-result latency under which a run is sustained (default: 200)",
      defaultValue = "200")
  long latencyBoundMs;

  @Option(
      names = "--pairs",
      description =
          "versus-bullet: alternated pairs of runs per comparison (default: 3, --full 5, quick 1)")
  int pairs;

  @Option(
      names = "--workloads",
      split = ",",
      paramLabel = "NAME",
      description =
          "versus-bullet: the workloads to compare (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = VersusBulletScenario.WorkloadNames.class)
  List<String> workloads = new ArrayList<>();

  @Option(
      names = "--inputs",
      split = ",",
      paramLabel = "NAME",
      description =
          "versus-bullet: the inputs to compare on (default: all): small-pool,"
              + " large-pool, json")
  List<String> inputs = new ArrayList<>();

  @Option(
      names = "--pool-records",
      description =
          "versus-bullet: records in the large pool built before the runs (default: 1,000,000,"
              + " quick 4,096; fewer when the heap cannot hold them)")
  int poolRecords;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description = "report: the folder of a run's results (default: docs/bench-results)")
  Path results;

  @Option(
      names = "--doc",
      paramLabel = "FILE",
      description =
          "report: the document whose generated tables to rewrite (default:"
              + " docs/performance.md)")
  Path doc;

  @Option(
      names = "--begin",
      paramLabel = "COMMAND",
      description =
          "report: start a run instead: write its run.json (machine, commit, JDK, load"
              + " now) with the command that runs it")
  String begin;

  @Option(
      names = "--check",
      description =
          "report: check the document instead of rewriting it: exit 1, naming them, when a"
              + " generated block says its results are missing (\"Not measured\") or links an"
              + " image that is not there")
  boolean check;

  @Option(
      names = "--end",
      description = "report: end a run: add the time it ended and the load then to its run.json")
  boolean end;

  @Option(
      names = "--ingest",
      description = "metering: how documents reach the engine: source or http (default: source)",
      defaultValue = "source")
  String ingest;

  @Option(
      names = "--kafka",
      paramLabel = "HOST:PORT",
      description =
          "flink, bullet-kafka: an existing Kafka broker to use (default: start one on loopback,"
              + " from the Kafka jars the build resolved)")
  String kafka;

  @Option(
      names = "--http",
      description =
          "metering: POST the documents to a real service's /api/ingest (same as --ingest http)")
  boolean http;

  @Override
  public Integer call() throws Exception {
    if (quick && full) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--quick and --full exclude each other: choose one");
    }
    Settings d = Settings.defaults(quick, full);
    Settings s =
        new Settings(
            quick,
            rate,
            recordBytes,
            List.copyOf(workers),
            List.copyOf(queries),
            List.copyOf(sizes),
            probeMs > 0 ? probeMs : d.probeMs(),
            d.warmupMs(),
            latencyBoundMs,
            pairs > 0 ? pairs : d.pairs(),
            poolRecords > 0 ? poolRecords : d.poolRecords(),
            kafka,
            d.full(),
            List.copyOf(workloads),
            List.copyOf(inputs));
    if (scenario.equals("report")) {
      return report();
    }
    Scenario sc = Scenarios.byName().get(scenario);
    if (sc == null) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "Unknown scenario " + scenario + "; one of " + String.join(", ", Scenarios.names()));
    }
    if (sc instanceof MeteringScenario) {
      sc =
          new MeteringScenario(
              http
                  ? UsageIngestion.HTTP
                  : UsageIngestion.valueOf(ingest.toUpperCase(java.util.Locale.ROOT)));
    }
    Path dir = out != null ? out : Path.of("bench-results", scenario);
    Report r = run(sc, s, dir, System.out);
    return r.problems().isEmpty() ? 0 : 1;
  }

  /**
   * {@code spyglass bench report}: with {@code --begin}, writes the run's {@code run.json} at its
   * start; with {@code --end}, adds its end to it; else rewrites the generated tables of the
   * document from the run's results.
   */
  private int report() throws Exception {
    Path dir = results != null ? results : Path.of("docs", "bench-results");
    if (begin != null) {
      java.nio.file.Files.createDirectories(dir);
      java.nio.file.Files.writeString(
          dir.resolve("run.json"),
          Machine.runJson("all", quick, java.time.Instant.now(), 0, Machine.loadAverage(), begin));
      System.out.println("run.json written to " + dir);
      return 0;
    }
    if (end) {
      Path run = dir.resolve("run.json");
      java.nio.file.Files.writeString(
          run,
          Machine.endRunJson(
              java.nio.file.Files.readString(run), java.time.Instant.now(), Machine.loadAverage()));
      System.out.println("end of the run written to " + run);
      return 0;
    }
    Path file = doc != null ? doc : Path.of("docs", "performance.md");
    if (check) {
      List<String> gaps = PageCheck.gaps(file);
      if (gaps.isEmpty()) {
        System.out.println(
            "every generated block of " + file + " has its results, and every image is there");
        return 0;
      }
      System.err.println(
          file
              + ": "
              + gaps.size()
              + " generated blocks without their results (run their parts, e.g. ONLY='PART'"
              + " spyglass-bench/publish.sh, then publish again):");
      gaps.forEach(g -> System.err.println("  " + g));
      return 1;
    }
    int blocks = new BenchReport(dir, file).regenerate();
    System.out.println(blocks + " generated blocks of " + file + " rewritten from " + dir);
    return 0;
  }

  /** Runs a scenario, printing to {@code console} and writing files to {@code out}. */
  static Report run(Scenario sc, Settings s, Path out, PrintStream console) throws Exception {
    System.setProperty("java.awt.headless", "true");
    Report r = new Report(out, console);
    console.println("# spyglass bench " + sc.name() + (s.quick() ? " --quick" : ""));
    console.println();
    console.println("Machine: " + Machine.describe());
    console.println();
    console.println(sc.description());
    long start = System.currentTimeMillis();
    double loadBefore = Machine.loadAverage();
    sc.run(s, r);
    r.file(
        "run.json",
        Machine.runJson(
            sc.name(),
            s.quick(),
            java.time.Instant.ofEpochMilli(start),
            (System.currentTimeMillis() - start) / 1000.0,
            loadBefore,
            null));
    console.println();
    console.printf(
        "%s in %.1f s; files in %s%s%n",
        sc.name(),
        (System.currentTimeMillis() - start) / 1000.0,
        out,
        r.problems().isEmpty() ? "" : "; " + r.problems().size() + " PROBLEMS");
    return r;
  }

  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(Scenarios.names());
    }
  }
}
