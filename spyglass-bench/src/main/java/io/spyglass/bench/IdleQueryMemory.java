package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.QueryProcessor;
import io.spyglass.testkit.ManualClock;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Heap held per idle query: starts 10,000 queries of one sort in a {@link QueryProcessor}, without
 * a record, and compares the used heap after full collections before and after. Parsing the same
 * sort of queries first in a processor that is thrown away keeps parser caches out of the count.
 *
 * <p>Run with {@code java -cp spyglass-benchmarks.jar io.spyglass.bench.IdleQueryMemory [queries
 * [csv]]}; with a second argument the table is also written to that CSV file.
 */
public final class IdleQueryMemory {
  private enum Sort {
    RAW_ID(i -> "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + id(i) + "' LIMIT 10"),
    RAW_RANGE(i -> "SELECT * FROM STREAM(30000, TIME) WHERE duration > " + (500 + i) + " LIMIT 10"),
    GROUP_BY(
        i ->
            "SELECT demographics.country AS country, device, COUNT(*) AS n, AVG(duration) AS avg"
                + " FROM STREAM(30000, TIME) WHERE timespent > "
                + i
                + " GROUP BY demographics.country, device"),
    COUNT_DISTINCT(
        i -> "SELECT COUNT(DISTINCT id) AS ids FROM STREAM(30000, TIME) WHERE duration > " + i),
    QUANTILE(
        i ->
            "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(30000, TIME) WHERE timespent > "
                + i),
    TOP_K(
        i ->
            "SELECT TOP(10, demographics.country, browser_name) AS n FROM STREAM(30000, TIME)"
                + " WHERE duration > "
                + i),
    MIX(i -> values()[i % 6].text.apply(i / 6));

    final IntFunction<String> text;

    Sort(IntFunction<String> text) {
      this.text = text;
    }
  }

  private IdleQueryMemory() {}

  public static void main(String[] args) throws InterruptedException, IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    StringBuilder csv = new StringBuilder("queries,count,heap bytes,bytes per query\n");
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.out.printf(
        Locale.ROOT, "%-15s %8s %14s %10s%n", "queries", "count", "heap bytes", "per query");
    for (Sort sort : Sort.values()) {
      fill(sort, n, 100_000_000); // warms up the parser on the same sort of text
      long before = usedAfterGc(memory);
      QueryProcessor processor = fill(sort, n, 0);
      long after = usedAfterGc(memory);
      System.out.printf(
          Locale.ROOT,
          "%-15s %8d %14d %10d%n",
          sort,
          processor.size(),
          after - before,
          (after - before) / n);
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%d,%d,%d%n",
              sort,
              processor.size(),
              after - before,
              (after - before) / n));
      Reference.reachabilityFence(processor);
    }
    if (args.length > 1) {
      Files.writeString(Path.of(args[1]), csv, StandardCharsets.UTF_8);
    }
  }

  private static QueryProcessor fill(Sort sort, int n, int offset) {
    QueryProcessor processor =
        new QueryProcessor(QueryLimits.DEFAULTS, new ManualClock(Bench.NOW_MS), (q, r) -> {});
    for (int i = 0; i < n; i++) {
      processor.submit("q" + (offset + i), sort.text.apply(offset + i));
    }
    return processor;
  }

  /** A distinct id per index, shaped like the events' ids. */
  private static String id(int i) {
    return Events.randomId(new SplittableRandom(i));
  }

  private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      System.gc();
      Thread.sleep(200);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
