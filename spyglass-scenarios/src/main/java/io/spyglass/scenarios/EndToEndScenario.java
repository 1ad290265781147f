package io.spyglass.scenarios;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.EventGenerator;
import io.spyglass.sources.Sources;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The command a user runs, end to end: {@code spyglass query --source file:... --queries ...} with
 * needle queries over a file of generated records (each query's id planted once in the file), in a
 * process of its own, timed from start to exit. The rate is the large file's records over the time
 * it takes beyond a run over its first 1,000 records with the same queries, so starting the JVM and
 * the queries is not counted; runs alternate small and large, median of the pairs. Every needle
 * must be found.
 *
 * <p>The command runs from the class path this scenario runs on ({@code spyglass bench}); where the
 * command is not there (the scenarios' own tests), the same file and queries go through the engine
 * in this process, to check every needle is found.
 */
final class EndToEndScenario implements Scenario {
  private static final String COMMAND = "io.spyglass.cli.SpyglassCommand";
  private static final int SMALL = 1_000;
  private static final long START_MS = 1_700_000_000_000L;

  @Override
  public String name() {
    return "end-to-end";
  }

  @Override
  public String description() {
    return "spyglass query --source file:... --queries: needle queries over a file of generated"
        + " records, records/s beyond starting up";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    int records = s.quick() ? 20_000 : 1_000_000;
    int queries = s.queriesOr(List.of(s.quick() ? 200 : 10_000)).get(0);
    Path dir = Files.createTempDirectory("spyglass-end-to-end");
    try {
      Path large = dir.resolve("records.json");
      Path small = dir.resolve("first-records.json");
      Path queryFile = dir.resolve("queries.bql");
      String[] needles = write(large, small, queryFile, records, queries, s.recordBytes());
      report.note(
          String.format(
              "%,d records of about %d B (%.0f MB), %,d queries %s, one needle each, planted"
                  + " evenly; %d workers",
              records,
              s.recordBytes(),
              Files.size(large) / 1e6,
              queries,
              "SELECT * FROM STREAM(MAX, TIME) WHERE id = '...' LIMIT 10",
              Machine.cores()));
      if (!commandAvailable()) {
        report.note("The spyglass command is not on the class path: the engine runs in process.");
        long start = System.nanoTime();
        int found = inProcess(large, queryFile, needles);
        double seconds = (System.nanoTime() - start) / 1e9;
        report.table(
            new Table(
                    "end-to-end",
                    "The engine in process over the file, queries started first",
                    "records",
                    "seconds",
                    "records/s",
                    "needles found")
                .row(
                    Table.count(records),
                    Table.num(seconds, 2),
                    Table.count(records / seconds),
                    found + " / " + needles.length));
        if (found != needles.length) {
          report.problem("found " + found + " of " + needles.length + " needles");
        }
        return;
      }
      Table t =
          new Table(
              "end-to-end",
              String.format(
                  "spyglass query over %,d records with %,d needle queries: seconds from start to"
                      + " exit, and records/s beyond a run over the first %,d records",
                  records, queries, SMALL),
              "pair",
              "small file (s)",
              "large file (s)",
              "records/s",
              "MB/s",
              "needles found");
      List<Double> rates = new ArrayList<>();
      for (int pair = 0; pair < s.pairs(); pair++) {
        report.progress("pair " + (pair + 1));
        Run a = pair % 2 == 0 ? command(small, queryFile, dir, needles) : null;
        Run b = command(large, queryFile, dir, needles);
        if (a == null) {
          a = command(small, queryFile, dir, needles);
        }
        double rate = (records - SMALL) / (b.seconds - a.seconds);
        rates.add(rate);
        t.row(
            pair + 1,
            Table.num(a.seconds, 2),
            Table.num(b.seconds, 2),
            Table.count(rate),
            Table.num(rate * Files.size(large) / records / 1e6, 0),
            b.found + " / " + needles.length);
        if (b.found != needles.length) {
          report.problem("found " + b.found + " of " + needles.length + " needles");
        }
      }
      rates.sort(null);
      report.table(t);
      report.note(String.format("Median: %,d records/s.", Math.round(rates.get(rates.size() / 2))));
    } finally {
      try (var files = Files.list(dir)) {
        for (Path p : files.toList()) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  /** Writes the records, the first {@value #SMALL} of them, and the queries; returns the ids. */
  private static String[] write(
      Path large, Path small, Path queryFile, int records, int queries, int recordBytes)
      throws IOException {
    String[] needles = new String[queries];
    EventGenerator ids = new EventGenerator(77, 64);
    StringBuilder bql = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      int len = ids.next(START_MS);
      needles[i] = new String(ids.buffer(), 7, 13, StandardCharsets.US_ASCII);
      bql.append("SELECT * FROM STREAM(MAX, TIME) WHERE id = '")
          .append(needles[i])
          .append("' LIMIT 10\n");
    }
    Files.writeString(queryFile, bql, StandardCharsets.UTF_8);
    int every = Math.max(1, records / queries);
    EventGenerator g = new EventGenerator(42, recordBytes);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(large), 1 << 20);
        OutputStream first = new BufferedOutputStream(Files.newOutputStream(small))) {
      for (int i = 0; i < records; i++) {
        int q = i / every;
        int len =
            i % every == every / 2 && q < queries
                ? g.next(START_MS + i, Map.of("id", needles[q]))
                : g.next(START_MS + i);
        out.write(g.buffer(), 0, len);
        out.write('\n');
        if (i < SMALL) {
          first.write(g.buffer(), 0, len);
          first.write('\n');
        }
      }
    }
    return needles;
  }

  private record Run(double seconds, int found) {}

  private static boolean commandAvailable() {
    try {
      Class.forName(COMMAND, false, EndToEndScenario.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Runs the command in a new JVM on the same class path, output to a file; times it. */
  private static Run command(Path records, Path queryFile, Path dir, String[] needles)
      throws IOException, InterruptedException {
    Path out = dir.resolve("out.json");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(a -> a.startsWith("--add-modules") || a.startsWith("-Xmx"))
            .toList());
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            COMMAND,
            "query",
            "--source",
            "file:" + records,
            "--queries",
            queryFile.toString(),
            "--format",
            "json"));
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(30, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("spyglass query did not end in 30 minutes");
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Run(seconds, found(out, needles));
  }

  /** Needles in the command's output: records whose id is one of them, each counted once. */
  private static int found(Path output, String[] needles) throws IOException {
    Set<String> wanted = new HashSet<>(Arrays.asList(needles));
    Set<String> seen = new HashSet<>();
    JsonFactory json = new JsonFactory();
    try (JsonParser p = json.createParser(output.toFile())) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.FIELD_NAME && "id".equals(p.currentName())) {
          if (p.nextToken() == JsonToken.VALUE_STRING && wanted.contains(p.getText())) {
            seen.add(p.getText());
          }
        }
      }
    }
    return seen.size();
  }

  /** The same queries over the same file through the engine in this process. */
  private static int inProcess(Path records, Path queryFile, String[] needles) throws Exception {
    Set<String> wanted = new HashSet<>(Arrays.asList(needles));
    Set<String> seen = new HashSet<>();
    Engine engine = Engine.startPaused(Sources.open("file:" + records), EngineConfig.defaults());
    List<QueryHandle> handles = new ArrayList<>();
    for (String line : Files.readAllLines(queryFile, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        handles.add(engine.submit(line));
      }
    }
    for (QueryHandle h : handles) {
      h.awaitRunning(30, TimeUnit.SECONDS);
    }
    engine.resume();
    for (QueryHandle h : handles) {
      while (true) {
        boolean done = h.isDone(); // before the poll: nothing queued is missed
        Result r = h.poll(100, TimeUnit.MILLISECONDS);
        if (r == null) {
          if (done) {
            break;
          }
          continue;
        }
        for (Map<String, Object> record : r.records()) {
          Object id = record.get("id");
          if (id instanceof String s && wanted.contains(s)) {
            seen.add(s);
          }
        }
      }
    }
    engine.close();
    return seen.size();
  }
}
