package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.result.Result;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.QueryTestDriver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalRunTest {
  @TempDir Path dir;

  @Test
  void fileGivesTheSameFinalResultsAsTheCoreAlone() throws Exception {
    Path file = Events.writeFile(dir, 7, 5_000);
    List<String> texts =
        List.of(
            "SELECT COUNT(*) AS n, SUM(duration) AS d FROM STREAM(MAX, TIME)",
            "SELECT device, COUNT(*) AS n FROM STREAM(MAX, TIME) GROUP BY device");
    List<Query> queries = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int i = 0; i < texts.size(); i++) {
      queries.add(Query.parse("q" + (i + 1), texts.get(i), QueryLimits.DEFAULTS, now));
    }
    List<String> flink = new ArrayList<>();
    long t0 = System.nanoTime();
    Set<Thread> before = rpcThreads();
    Set<Thread> ours = new HashSet<>();
    try (LocalRun run = LocalRun.start("file:" + file, queries, 2)) {
      System.out.println("started " + (System.nanoTime() - t0) / 1_000_000);
      ours.addAll(rpcThreads());
      ours.removeAll(before);
      for (RemoteQuery q : run.queries()) {
        q.awaitRunning(60, TimeUnit.SECONDS);
        System.out.println("running " + (System.nanoTime() - t0) / 1_000_000);
        Result r;
        while ((r = q.poll(60, TimeUnit.SECONDS)) != null) {
          System.out.println("result " + (System.nanoTime() - t0) / 1_000_000);
          flink.add(q.id() + " " + r.records());
        }
        assertThat(q.error()).isNull();
      }
    }
    // closed, the run's cluster is down: a process exiting now does not race its RPC system's
    // shutdown (whose JVM hook would print a stack trace of a class it can no longer load)
    assertThat(ours).as("the run's RPC threads").isNotEmpty();
    assertThat(ours).noneMatch(Thread::isAlive);

    // the core's own driver, one thread and every record in one pass, as the reference
    QueryTestDriver core = new QueryTestDriver();
    for (int i = 0; i < texts.size(); i++) {
      core.submit("q" + (i + 1), texts.get(i));
    }
    core.pipe(Files.readAllLines(file).toArray(String[]::new)).finishAll();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      for (Result r : core.results("q" + (i + 1))) {
        expected.add("q" + (i + 1) + " " + r.records());
      }
    }
    System.out.println(flink);
    assertThat(flink).isEqualTo(expected);
  }

  /**
   * A query runs on the job under the limits it was checked with where it was submitted, not the
   * job's defaults: here a raw query without LIMIT gets 3 records (the defaults would give 100).
   */
  @Test
  void theJobKeepsToTheLimitsTheQueryWasCheckedWith() throws Exception {
    Path file = Events.writeFile(dir, 7, 2_000);
    QueryLimits small =
        new QueryLimits(
            30_000L,
            24L * 60 * 60 * 1000,
            3,
            3,
            512,
            1_000_000,
            16_384,
            1_024,
            100,
            1_024,
            1_000,
            100L,
            64 * 1024,
            500);
    Query q = Query.parse("raw", "SELECT * FROM STREAM(MAX, TIME)", small, 0);
    List<Result> results = new ArrayList<>();
    try (LocalRun run = LocalRun.start("file:" + file, List.of(q), 1)) {
      RemoteQuery r = run.queries().get(0);
      r.awaitRunning(60, TimeUnit.SECONDS);
      Result one;
      while ((one = r.poll(60, TimeUnit.SECONDS)) != null) {
        results.add(one);
      }
      assertThat(r.error()).isNull();
    }
    assertThat(results.stream().mapToInt(x -> x.records().size()).sum()).isEqualTo(3);
  }

  private static Set<Thread> rpcThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("flink-") && t.getName().contains("pekko")) {
        out.add(t);
      }
    }
    return out;
  }
}
