package io.spyglass.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.core.result.Result;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Golden scripts: query text, input records, time steps and expected output, in one readable file.
 * A file holds cases, each run on a fresh {@link QueryTestDriver}:
 *
 * <pre>
 * # a comment
 * === count matching records
 * query q: SELECT COUNT(*) AS n FROM STREAM(1000, TIME) WHERE a &gt; 1
 * records:
 * {"a": 1}
 * {"a": 2}
 * advance 1000
 * expect q: [{"n": 1}]
 * </pre>
 *
 * Steps:
 *
 * <ul>
 *   <li>{@code query ID: BQL} starts a query.
 *   <li>{@code records:} then one JSON record per line, up to the next step: one batch. A line
 *       starting with {@code !} is a record taken as it is, even when it does not start with
 *       {@code {}: for malformed input.
 *   <li>{@code repeat N: JSON} one batch of N copies of the record.
 *   <li>{@code advance MS} moves the clock and closes due windows; {@code finish} ends every query.
 *   <li>{@code expect ID: [records]} the query's next unread result has exactly these records, in
 *       order. Numbers compare by value, but an integer never equals a decimal: {@code 2} is a
 *       LONG, {@code 2.0} a DOUBLE. {@code expect-unordered ID: [...]} in any order.
 *   <li>{@code skip ID N} reads past the query's next N results, which must exist.
 *   <li>{@code expect-meta ID: {...}} the meta of the last result read for ID contains this object
 *       (a subset match).
 *   <li>{@code expect-rows ID: N} the query's next unread result has N records, whichever they
 *       are (e.g. any N of more groups).
 *   <li>{@code expect-none ID} the query has no unread result.
 *   <li>{@code error: BQL => LINE:COL message fragment} the query is rejected with an error there.
 *   <li>{@code peek ID: [[records], ...]} the query's open windows, read without closing them,
 *       have these records, one list per window in time order; {@code expect-meta} then checks
 *       the last one. Peeked results are not the query's results.
 *   <li>{@code malformed N} N records so far were malformed and skipped.
 * </ul>
 */
public final class GoldenScript {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One case of a file. */
  public record Case(String file, String name, int line, List<String> steps, List<Integer> lines) {
    @Override
    public String toString() {
      return file + ": " + name;
    }
  }

  private GoldenScript() {}

  /**
   * What a script drives: the embedded {@link QueryTestDriver} by default, or another runtime that
   * runs the same steps (e.g. the Flink job, with time in clock marks). Ids are the script's.
   */
  public interface Driver {
    /**
     * Starts a query.
     *
     * @throws BqlException when the query is not valid
     */
    void submit(String id, String bql);

    /** Feeds JSON records (malformed ones too) as one batch. */
    void pipe(String... jsonRecords);

    /** Moves the clock forward. */
    void advance(long ms);

    /** Ends every query now. */
    void finishAll();

    /** What the query emitted so far, in order, after every step before this call. */
    List<Result> results(String id);

    /** Records skipped as malformed so far. */
    long malformed();

    /**
     * The query's open windows as results, without closing them. A runtime that cannot read open
     * windows throws {@link UnsupportedOperationException}.
     */
    default List<Result> peek(String id) {
      throw new UnsupportedOperationException("reading open windows");
    }
  }

  /** The embedded driver as a {@link Driver}. */
  public static Driver embedded(QueryTestDriver d) {
    return new Driver() {
      @Override
      public void submit(String id, String bql) {
        d.submit(id, bql);
      }

      @Override
      public void pipe(String... jsonRecords) {
        d.pipe(jsonRecords);
      }

      @Override
      public void advance(long ms) {
        d.advance(ms);
      }

      @Override
      public void finishAll() {
        d.finishAll();
      }

      @Override
      public List<Result> results(String id) {
        return d.results(id);
      }

      @Override
      public long malformed() {
        return d.malformed();
      }

      @Override
      public List<Result> peek(String id) {
        return d.peek(id);
      }
    };
  }

  /** The cases of a golden file. */
  public static List<Case> parse(Path file) {
    List<String> all;
    try {
      all = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Case> cases = new ArrayList<>();
    String name = null;
    int start = 0;
    List<String> steps = new ArrayList<>();
    List<Integer> lines = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      String line = all.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("===")) {
        if (name != null) {
          cases.add(new Case(file.getFileName().toString(), name, start, steps, lines));
        }
        name = line.substring(3).strip();
        start = i + 1;
        steps = new ArrayList<>();
        lines = new ArrayList<>();
        continue;
      }
      if (name == null) {
        throw new IllegalArgumentException(file + ":" + (i + 1) + ": a step before any '=== case'");
      }
      steps.add(line);
      lines.add(i + 1);
    }
    if (name != null) {
      cases.add(new Case(file.getFileName().toString(), name, start, steps, lines));
    }
    return cases;
  }

  /** Runs a case; throws {@link AssertionError} naming the file line of the first failed step. */
  public static void run(Case c) {
    run(c, embedded(new QueryTestDriver()));
  }

  /** Runs a case on {@code driver}, fresh for the case. */
  public static void run(Case c, Driver driver) {
    Map<String, Integer> read = new HashMap<>();
    Map<String, Result> lastRead = new HashMap<>();
    List<String> batch = null;
    for (int i = 0; i < c.steps().size(); i++) {
      String step = c.steps().get(i);
      String where = c.file() + ":" + c.lines().get(i) + " [" + c.name() + "] ";
      if (batch != null) {
        if (step.startsWith("{") || step.startsWith("!")) {
          batch.add(step.startsWith("!") ? step.substring(1) : step);
          continue;
        }
        driver.pipe(batch.toArray(new String[0]));
        batch = null;
      }
      try {
        if (step.equals("records:")) {
          batch = new ArrayList<>();
        } else if (step.startsWith("query ")) {
          int colon = step.indexOf(':');
          driver.submit(step.substring(6, colon).strip(), step.substring(colon + 1).strip());
        } else if (step.startsWith("repeat ")) {
          int colon = step.indexOf(':');
          int n = Integer.parseInt(step.substring(7, colon).strip());
          String[] copies = new String[n];
          Arrays.fill(copies, step.substring(colon + 1).strip());
          driver.pipe(copies);
        } else if (step.startsWith("skip ")) {
          String[] parts = step.substring(5).strip().split("\\s+");
          String id = parts[0];
          int n = read.getOrDefault(id, 0) + Integer.parseInt(parts[1]);
          List<Result> rs = driver.results(id);
          if (rs.size() < n) {
            throw new AssertionError("query " + id + " emitted only " + rs.size() + " results");
          }
          read.put(id, n);
          lastRead.put(id, rs.get(n - 1));
        } else if (step.startsWith("advance ")) {
          driver.advance(Long.parseLong(step.substring(8).strip()));
        } else if (step.equals("finish")) {
          driver.finishAll();
        } else if (step.startsWith("expect-none ")) {
          String id = step.substring(12).strip();
          int n = read.getOrDefault(id, 0);
          List<Result> rs = driver.results(id);
          if (rs.size() > n) {
            throw new AssertionError("expected no result, got " + rs.get(n).toJson());
          }
        } else if (step.startsWith("expect-rows ")) {
          int colon = step.indexOf(':');
          String id = step.substring(12, colon).strip();
          int n = read.getOrDefault(id, 0);
          List<Result> rs = driver.results(id);
          if (rs.size() <= n) {
            throw new AssertionError("query " + id + " emitted no result #" + (n + 1));
          }
          read.put(id, n + 1);
          lastRead.put(id, rs.get(n));
          int expected = Integer.parseInt(step.substring(colon + 1).strip());
          if (rs.get(n).records().size() != expected) {
            throw new AssertionError(
                "expected " + expected + " records, got " + rs.get(n).toJson());
          }
        } else if (step.startsWith("expect-meta ")) {
          int colon = step.indexOf(':');
          String id = step.substring(12, colon).strip();
          Result last = lastRead.get(id);
          if (last == null) {
            throw new AssertionError("no result of " + id + " read yet");
          }
          JsonNode meta = JSON.readTree(last.toJson()).get("meta");
          JsonNode expected = JSON.readTree(step.substring(colon + 1));
          if (!contains(meta, expected)) {
            throw new AssertionError("meta " + meta + " does not contain " + expected);
          }
        } else if (step.startsWith("expect ") || step.startsWith("expect-unordered ")) {
          boolean unordered = step.startsWith("expect-unordered ");
          int colon = step.indexOf(':');
          String id = step.substring(unordered ? 17 : 7, colon).strip();
          int n = read.getOrDefault(id, 0);
          List<Result> rs = driver.results(id);
          if (rs.size() <= n) {
            throw new AssertionError("query " + id + " emitted no result #" + (n + 1));
          }
          Result r = rs.get(n);
          read.put(id, n + 1);
          lastRead.put(id, r);
          JsonNode actual = JSON.readTree(r.toJson()).get("records");
          JsonNode expected = JSON.readTree(step.substring(colon + 1));
          boolean ok = unordered ? sameMultiset(actual, expected) : same(actual, expected);
          if (!ok) {
            throw new AssertionError("expected " + expected + "\n but got " + actual);
          }
        } else if (step.startsWith("error:")) {
          int arrow = step.lastIndexOf("=>");
          String bql = step.substring(6, arrow).strip();
          String expected = step.substring(arrow + 2).strip();
          String position = expected.split(" ", 2)[0];
          String fragment = expected.contains(" ") ? expected.split(" ", 2)[1] : "";
          try {
            driver.submit("error-" + i, bql);
            throw new AssertionError("expected an error, the query was accepted: " + bql);
          } catch (BqlException e) {
            boolean found = false;
            for (BqlError err : e.errors()) {
              String pos = err.span().line() + ":" + err.span().column();
              String text = err.message() + " " + err.resolution();
              found |= pos.equals(position) && text.toLowerCase().contains(fragment.toLowerCase());
            }
            if (!found) {
              throw new AssertionError(
                  "expected an error at "
                      + position
                      + " with '"
                      + fragment
                      + "', got "
                      + e.errors());
            }
          }
        } else if (step.startsWith("peek ")) {
          int colon = step.indexOf(':');
          String id = step.substring(5, colon).strip();
          List<Result> open = driver.peek(id);
          JsonNode expected = JSON.readTree(step.substring(colon + 1));
          if (open.size() != expected.size()) {
            throw new AssertionError(
                "expected " + expected.size() + " open windows, got " + open.size() + ": " + open);
          }
          for (int w = 0; w < open.size(); w++) {
            JsonNode actual = JSON.readTree(open.get(w).toJson()).get("records");
            if (!same(actual, expected.get(w))) {
              throw new AssertionError(
                  "open window #"
                      + (w + 1)
                      + ": expected "
                      + expected.get(w)
                      + "\n but got "
                      + actual);
            }
          }
          if (!open.isEmpty()) {
            lastRead.put(id, open.get(open.size() - 1));
          }
        } else if (step.startsWith("malformed ")) {
          long expected = Long.parseLong(step.substring(10).strip());
          if (driver.malformed() != expected) {
            throw new AssertionError(
                "expected " + expected + " malformed, got " + driver.malformed());
          }
        } else {
          throw new AssertionError("unknown step: " + step);
        }
      } catch (AssertionError e) {
        throw new AssertionError(where + e.getMessage(), e);
      } catch (IOException e) {
        throw new AssertionError(where + "bad JSON: " + e.getMessage(), e);
      } catch (RuntimeException e) {
        throw new AssertionError(where + e, e);
      }
    }
    if (batch != null) {
      driver.pipe(batch.toArray(new String[0]));
    }
  }

  /** Numbers compare by value, integers only with integers; everything else structurally. */
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          if (a.isIntegralNumber() != b.isIntegralNumber()) {
            return 1;
          }
          return Math.abs(a.doubleValue() - b.doubleValue())
                  <= 1e-9 * Math.max(1, Math.abs(a.doubleValue()))
              ? 0
              : 1;
        }
        return a.equals(b) ? 0 : 1;
      };

  static boolean same(JsonNode a, JsonNode b) {
    return a.equals(BY_VALUE, b);
  }

  static boolean sameMultiset(JsonNode actual, JsonNode expected) {
    if (!actual.isArray() || !expected.isArray() || actual.size() != expected.size()) {
      return false;
    }
    List<JsonNode> left = new ArrayList<>();
    actual.forEach(left::add);
    for (JsonNode e : expected) {
      Iterator<JsonNode> it = left.iterator();
      boolean found = false;
      while (it.hasNext()) {
        if (same(it.next(), e)) {
          it.remove();
          found = true;
          break;
        }
      }
      if (!found) {
        return false;
      }
    }
    return true;
  }

  static boolean contains(JsonNode actual, JsonNode expected) {
    if (expected.isObject()) {
      if (!actual.isObject()) {
        return false;
      }
      for (Map.Entry<String, JsonNode> f : expected.properties()) {
        JsonNode a = actual.get(f.getKey());
        if (a == null || !contains(a, f.getValue())) {
          return false;
        }
      }
      return true;
    }
    return same(actual, expected);
  }
}
