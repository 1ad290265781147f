package io.spyglass.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Deterministic events of each {@link Shape}, as JSON bytes and as records read from those bytes by
 * {@link JsonRecordReader} (so field names are interned as in a running engine).
 *
 * <p>Distributions the benchmark queries rely on: {@code duration} is exponential with a mean of
 * 150 (so {@code duration > 500} holds for about 3.6% of events and {@code duration > 700} for
 * about 1%); {@code timespent} is uniform in [0, 100000); {@code device} is {@code ios} for 30% of
 * events; {@code id} is a random 13-character string, distinct per event; {@code demographics.age}
 * takes 62 values and {@code device} 8, so grouping by both makes 496 groups.
 */
public final class Events {
  /**
   * Events pre-built per benchmark: cycled, so the working set stays the same in every run. Small
   * enough (about 1 MB) to stay in a core's L2 cache: a runtime filters each record right after
   * parsing it, while it is still in cache, and a pool of thousands of records would measure memory
   * latency instead of the filter. {@code -Dspyglass.bench.pool=4096} (a multiple of {@link
   * #BATCH}) measures that case: pass it with {@code -jvmArgsAppend}.
   */
  public static final int POOL = Integer.getInteger("spyglass.bench.pool", 256);

  /** Records handed to the engine per benchmark invocation, followed by an end of batch. */
  public static final int BATCH = 256;

  static final String[] DEVICES = {
    "ios", "android", "web", "ipad", "tv", "watch", "desktop", "other"
  };
  private static final double[] DEVICE_SHARES = {0.30, 0.35, 0.15, 0.06, 0.05, 0.03, 0.05, 0.01};
  static final String[] BROWSERS = {
    "chrome", "safari", "firefox", "edge", "samsung", "opera", "uc", "other"
  };
  static final String[] OSES = {
    "ios", "android", "windows", "macos", "linux", "tvos", "watchos", "other"
  };
  static final String[] EVENT_TYPES = {
    "view", "click", "scroll", "purchase", "search", "share", "login", "logout"
  };
  static final String[] COUNTRIES = {
    "us", "in", "br", "gb", "de", "fr", "jp", "ca", "mx", "id", "ng", "ph", "es", "it", "kr", "au",
    "tr", "ru", "ar", "pl", "nl", "se", "ch", "be", "at", "no", "dk", "fi", "ie", "pt", "gr", "cz",
    "hu", "ro", "za", "eg", "sa", "ae", "th", "vn"
  };
  private static final String[] STATES = {
    "california", "texas", "new york", "florida", "illinois", "ohio", "georgia", "washington"
  };
  private static final String[] WORDS = {
    "stream", "query", "window", "sketch", "record", "filter", "merge", "batch", "latency",
    "partition", "result", "engine", "signal", "market", "travel", "weather", "sports", "music"
  };
  private static final String USER_AGENT =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15"
          + " (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
  private static final JsonFactory JSON = new JsonFactory();

  private Events() {}

  /** {@code count} events of {@code shape} as JSON objects, one byte array each. */
  public static List<byte[]> json(Shape shape, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<String, Object> event =
          shape == Shape.REFERENCE ? reference(random, i) : bullet(random, i);
      out.add(toJson(event));
    }
    return out;
  }

  /** The events of {@link #json} read into records. */
  public static Record[] records(Shape shape, int count, long seed) {
    return read(json(shape, count, seed));
  }

  /** Reads every JSON object into a record of its own. */
  public static Record[] read(List<byte[]> json) {
    JsonRecordReader reader = new JsonRecordReader();
    Record[] out = new Record[json.size()];
    try {
      for (int i = 0; i < out.length; i++) {
        byte[] bytes = json.get(i);
        out[i] = new Record(32);
        reader.read(bytes, 0, bytes.length, out[i]);
      }
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("generated JSON must be well formed", e);
    }
    return out;
  }

  /** Mean size of the JSON objects, in bytes. */
  public static double meanBytes(List<byte[]> json) {
    long total = 0;
    for (byte[] b : json) {
      total += b.length;
    }
    return (double) total / json.size();
  }

  /** A random identifier like Bullet's example ids ({@code btsg8l9b234ha}). */
  public static String randomId(SplittableRandom random) {
    char[] c = new char[13];
    for (int i = 0; i < c.length; i++) {
      c[i] = Character.forDigit(random.nextInt(36), 36);
    }
    return new String(c);
  }

  private static Map<String, Object> reference(SplittableRandom r, int seq) {
    Map<String, Object> e = new LinkedHashMap<>();
    common(r, seq, e);
    e.put("latency_ms", round(r.nextDouble() * 250, 3));
    e.put("price", round(r.nextDouble() * 500, 2));
    e.put("is_logged_in", r.nextInt(4) != 0);
    e.put("is_bot", r.nextInt(50) == 0);
    e.put("session_id", hex(r, 32));
    e.put("url", "https://www.example.com/" + words(r, 3, "/") + "?ref=" + randomId(r));
    e.put("user_agent", USER_AGENT);
    e.put("referrer", "https://search.example.org/results?q=" + words(r, 3, "+"));
    Map<String, Object> demographics = new LinkedHashMap<>();
    demographics.put("country", pickSkewed(r, COUNTRIES));
    demographics.put("state", pick(r, STATES));
    demographics.put("age", age(r));
    demographics.put("gender", r.nextBoolean() ? "female" : "male");
    demographics.put("language", r.nextInt(3) == 0 ? "es" : "en");
    e.put("demographics", demographics);
    List<Object> tags = new ArrayList<>();
    for (int i = 0, n = 2 + r.nextInt(4); i < n; i++) {
      tags.add(pick(r, WORDS));
    }
    e.put("tags", tags);
    e.put("message", words(r, 64, " "));
    return e;
  }

  private static Map<String, Object> bullet(SplittableRandom r, int seq) {
    Map<String, Object> e = new LinkedHashMap<>();
    common(r, seq, e);
    e.put("browser_version", (60 + r.nextInt(60)) + ".0." + r.nextInt(9999) + "." + r.nextInt(99));
    e.put("os_version", (10 + r.nextInt(8)) + "." + r.nextInt(10));
    e.put("page", "/" + words(r, 2, "/"));
    e.put("referrer", "https://search.example.org/?q=" + pick(r, WORDS));
    e.put("user_agent", USER_AGENT);
    e.put("session_id", hex(r, 32));
    e.put("user_id", "u" + r.nextInt(1_000_000));
    e.put("is_logged_in", r.nextInt(4) != 0);
    e.put("is_bot", r.nextInt(50) == 0);
    e.put("experiment_ids", List.of("exp-" + r.nextInt(50), "exp-" + r.nextInt(50), "ctl"));
    Map<String, Object> demographics = new LinkedHashMap<>();
    demographics.put("country", pickSkewed(r, COUNTRIES));
    demographics.put("state", pick(r, STATES));
    demographics.put("city", pick(r, WORDS) + "ville");
    demographics.put("age", age(r));
    demographics.put("gender", r.nextBoolean() ? "female" : "male");
    demographics.put("language", r.nextInt(3) == 0 ? "es" : "en");
    demographics.put("income_bracket", (long) r.nextInt(8));
    demographics.put("education", r.nextBoolean() ? "college" : "high school");
    e.put("demographics", demographics);
    Map<String, Object> scores = new LinkedHashMap<>();
    for (int i = 1; i <= 6; i++) {
      scores.put("student_" + i, (long) r.nextInt(101));
    }
    e.put("test_scores", scores);
    Map<String, Object> districts = new LinkedHashMap<>();
    for (int d = 1; d <= 2; d++) {
      Map<String, Object> schools = new LinkedHashMap<>();
      for (int s = 1; s <= 3; s++) {
        schools.put("school_" + s, round(50 + r.nextDouble() * 50, 2));
      }
      districts.put("district_" + d, schools);
    }
    e.put("district_scores", districts);
    List<Object> clicks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Map<String, Object> click = new LinkedHashMap<>();
      click.put("x", (long) r.nextInt(1920));
      click.put("y", (long) r.nextInt(1080));
      click.put("target", pick(r, WORDS) + "-button");
      click.put("ts", 1_700_000_000_000L + seq * 10L + i);
      clicks.add(click);
    }
    e.put("clicks", clicks);
    e.put(
        "screen", map("width", 1170L, "height", 2532L, "density", 3.0, "orientation", "portrait"));
    e.put(
        "location",
        map(
            "lat",
            round(-90 + r.nextDouble() * 180, 5),
            "lon",
            round(-180 + r.nextDouble() * 360, 5),
            "accuracy",
            (long) r.nextInt(100),
            "timezone",
            "America/Los_Angeles"));
    e.put(
        "network",
        map(
            "type",
            r.nextBoolean() ? "wifi" : "cellular",
            "carrier",
            pick(r, WORDS) + " telecom",
            "latency_ms",
            round(r.nextDouble() * 250, 3),
            "bandwidth",
            (long) r.nextInt(100_000)));
    e.put("app", map("name", "reader", "version", "5.12.1", "build", 51201L, "channel", "stable"));
    e.put(
        "performance",
        map(
            "cpu",
            round(r.nextDouble(), 3),
            "memory",
            (long) r.nextInt(4096),
            "fps",
            (long) (30 + r.nextInt(31)),
            "battery",
            round(r.nextDouble(), 2),
            "load_ms",
            (long) r.nextInt(5000)));
    e.put(
        "flags",
        map(
            "dark_mode",
            r.nextBoolean(),
            "notifications",
            r.nextBoolean(),
            "beta",
            r.nextInt(10) == 0,
            "ads_enabled",
            r.nextBoolean()));
    return e;
  }

  /** The fields every shape has, in the same order. */
  private static void common(SplittableRandom r, int seq, Map<String, Object> e) {
    e.put("id", randomId(r));
    e.put("timestamp", 1_700_000_000_000L + seq * 7L);
    e.put("event_type", pick(r, EVENT_TYPES));
    e.put("device", pickWeighted(r, DEVICES, DEVICE_SHARES));
    e.put("browser_name", pickSkewed(r, BROWSERS));
    e.put("os_name", pickSkewed(r, OSES));
    e.put("ip_address", "10." + r.nextInt(4) + "." + r.nextInt(256) + "." + r.nextInt(256));
    e.put("duration", (long) (-150 * Math.log(1 - r.nextDouble())));
    e.put("timespent", r.nextLong(100_000));
  }

  private static long age(SplittableRandom r) {
    return 18 + r.nextInt(62);
  }

  private static Map<String, Object> map(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  private static String pick(SplittableRandom r, String[] values) {
    return values[r.nextInt(values.length)];
  }

  /** Early values much more often than late ones, as with countries or browsers. */
  private static String pickSkewed(SplittableRandom r, String[] values) {
    double u = r.nextDouble();
    return values[(int) (values.length * u * u * u)];
  }

  private static String pickWeighted(SplittableRandom r, String[] values, double[] shares) {
    double u = r.nextDouble();
    for (int i = 0; i < values.length; i++) {
      u -= shares[i];
      if (u < 0) {
        return values[i];
      }
    }
    return values[values.length - 1];
  }

  private static String words(SplittableRandom r, int n, String separator) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(separator);
      }
      sb.append(pick(r, WORDS));
    }
    return sb.toString();
  }

  private static String hex(SplittableRandom r, int length) {
    char[] c = new char[length];
    for (int i = 0; i < length; i++) {
      c[i] = Character.forDigit(r.nextInt(16), 16);
    }
    return new String(c);
  }

  private static double round(double v, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(v * scale) / scale;
  }

  private static byte[] toJson(Map<String, Object> event) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(2048);
    try (JsonGenerator g = JSON.createGenerator(bytes)) {
      write(g, event);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void write(JsonGenerator g, Object v) throws IOException {
    if (v instanceof Map) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        g.writeFieldName((String) e.getKey());
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof List) {
      g.writeStartArray();
      for (Object item : (List<?>) v) {
        write(g, item);
      }
      g.writeEndArray();
    } else if (v instanceof String) {
      g.writeString((String) v);
    } else if (v instanceof Long) {
      g.writeNumber((Long) v);
    } else if (v instanceof Double) {
      g.writeNumber((Double) v);
    } else if (v instanceof Boolean) {
      g.writeBoolean((Boolean) v);
    } else {
      throw new IllegalArgumentException("no JSON for " + v);
    }
  }
}
