package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.client.Reply;
import io.spyglass.testkit.QueryTestDriver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * What the tests of the job over the ingest log share: usage documents by hour, written with the
 * service's own ingest log writer; a listener that keeps the replies; the embedded engine's results
 * over the same documents.
 */
final class MeteringDocs {
  private MeteringDocs() {}

  static final String QUERY =
      "SELECT org, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";

  static final long HOUR = 3_600_000L;
  static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  private static final AtomicInteger IDS = new AtomicInteger();

  /** The documents of hour {@code h}: a few per org, in time order, all within the hour. */
  static List<String> hour(int h) {
    List<String> docs = new ArrayList<>();
    for (int i = 0; i < 6 + h % 3; i++) {
      docs.add(doc("o" + (i % 3), i + h, T0 + h * HOUR + i * 60_000L));
    }
    return docs;
  }

  static String doc(String org, long quantity, long time) {
    return "{\"id\": \"d"
        + IDS.incrementAndGet()
        + "\", \"org\": \""
        + org
        + "\", \"quantity\": "
        + quantity
        + ", \"time\": "
        + time
        + "}";
  }

  static void ingest(Ingestor in, List<String> docs) throws Exception {
    List<Ingestor.Doc> batch = new ArrayList<>();
    for (String d : docs) {
      byte[] b = d.getBytes(StandardCharsets.UTF_8);
      String id = d.substring(d.indexOf("\"d") + 1, d.indexOf("\", \"org\""));
      batch.add(new Ingestor.Doc(id, b, 0, b.length));
    }
    Ingestor.Outcome o = in.submit(batch).get(30, TimeUnit.SECONDS);
    assertThat(o.accepted()).isEqualTo(docs.size());
  }

  /** Replies as a listener gets them, and the windows once each, by number. */
  static final class Collected implements MeteringRun.Listener {
    final List<Reply> replies = new CopyOnWriteArrayList<>();

    @Override
    public void reply(Reply r) {
      replies.add(r);
    }

    boolean running(String id) {
      return replies.stream()
          .anyMatch(r -> r.queryId().equals(id) && r.kind() == Reply.Kind.RUNNING);
    }

    /** Final windows by number, each once; late updates by the query's count of late records. */
    Map<String, String> windows(String id) {
      Map<String, String> out = new TreeMap<>();
      for (Reply r : replies) {
        if (r.queryId().equals(id) && r.kind() == Reply.Kind.RESULT) {
          String key = key(r.result());
          String value = describe(r.result());
          String before = out.putIfAbsent(key, value);
          assertThat(before == null || before.equals(value))
              .as("a window delivered again holds the same records: %s vs %s", before, value)
              .isTrue();
        }
      }
      return out;
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("replies:");
      for (Reply r : replies) {
        b.append(' ').append(r.kind());
        if (r.kind() == Reply.Kind.RESULT) {
          b.append(' ').append(key(r.result())).append(' ').append(describe(r.result()));
        } else if (r.error() != null) {
          b.append(' ').append(r.error());
        }
      }
      return b.toString();
    }

    /** Whether the look numbered {@code look} was answered. */
    boolean answered(long look) {
      return replies.stream().anyMatch(r -> r.kind() == Reply.Kind.INSPECTED && r.sync() == look);
    }

    /** The open windows the look numbered {@code look} at query {@code id} showed. */
    List<String> looked(String id, long look) {
      List<String> open = new ArrayList<>();
      for (Reply r : replies) {
        if (!r.queryId().equals(id)) {
          continue;
        }
        if (r.kind() == Reply.Kind.OPEN) {
          open.add(describe(r.result()));
        } else if (r.kind() == Reply.Kind.INSPECTED) {
          if (r.sync() == look) {
            return open;
          }
          open.clear();
        }
      }
      throw new AssertionError("look " + look + " at " + id + " not answered: " + this);
    }

    long delivered(String id) {
      return replies.stream()
          .filter(r -> r.queryId().equals(id) && r.kind() == Reply.Kind.RESULT)
          .count();
    }
  }

  /** A window's number, or for a late update the query's count of late records. */
  static String key(Result r) {
    Meta m = r.meta();
    Meta.WindowMeta w = m.window().orElseThrow();
    boolean late = w.eventWindow().isPresent() && w.eventWindow().get().lateUpdate();
    return late
        ? "late " + m.eventTime().orElseThrow().late()
        : String.format("window %08d", w.number());
  }

  static String describe(Result r) {
    List<String> rows = new ArrayList<>();
    for (Map<String, Object> row : r.records()) {
      rows.add(new TreeMap<>(row).toString());
    }
    rows.sort(null);
    return (r.meta().isFinal() ? "final " : "") + rows;
  }

  /** The embedded engine's results over the same phases of documents, one tick after each. */
  static Map<String, String> embedded(List<List<String>> phases) {
    QueryTestDriver d = new QueryTestDriver();
    d.submit("q", QUERY);
    for (List<String> phase : phases) {
      d.pipe(phase.toArray(new String[0]));
      d.advance(1000);
    }
    Map<String, String> out = new TreeMap<>();
    for (Result r : d.results("q")) {
      out.put(key(r), describe(r));
    }
    return out;
  }

  static void await(String what, BooleanSupplier done, Object state) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 120 s: " + what + "; " + state);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  static CheckedQuery checked() {
    return CheckedQuery.check(QUERY, QueryLimits.DEFAULTS);
  }

  static final MeteringRun.Settings SETTINGS =
      MeteringRun.Settings.DEFAULTS.withCheckpointEveryMs(200);

  static long position(MeteringRun run) {
    try {
      return run.checkpointedPosition();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
