package io.spyglass.sources;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes synthetic user events as JSON, shaped like the data of Bullet's performance study: about
 * 90 top-level and nested fields (ids, demographics, device and browser, HTTP status, skewed
 * durations and latencies, nested maps, lists of strings and of maps, a {@code test_scores} map of
 * student to score, booleans, doubles and nulls) in about 1.8 KiB.
 *
 * <p>Records are written straight into a reused byte buffer from pre-encoded names and value pools,
 * so generation costs a few microseconds per record. The output is a function of the seed, the
 * target size and the event times passed in: the same arguments give the same bytes.
 *
 * <p>Size: fields are dropped from the end of the field order to fit a small target, and a {@code
 * payload} string pads each record to the target when the fields are shorter. Records with long
 * lists or many scores may exceed the target slightly.
 *
 * <p>Not thread-safe.
 */
public final class EventGenerator {
  /** About 1.8 KiB, the record size of Bullet's performance study. */
  public static final int DEFAULT_RECORD_BYTES = 1843;

  public static final int MIN_RECORD_BYTES = 64;
  public static final int MAX_RECORD_BYTES = 1 << 20;

  /** Top-level fields, in the order they are written and kept when the target size is small. */
  private static final String[] FIELDS = {
    "id",
    "event_ts",
    "status",
    "device",
    "duration",
    "demographics",
    "browser_name",
    "browser-id",
    "latency_ms",
    "timespent",
    "event_type",
    "ip_address",
    "user_id",
    "session_id",
    "received_ts",
    "os_name",
    "os_version",
    "browser_version",
    "page_url",
    "referrer",
    "domain",
    "http_method",
    "is_logged_in",
    "is_bot",
    "is_mobile",
    "score",
    "revenue",
    "currency",
    "error_code",
    "search_query",
    "test_scores",
    "tags",
    "geo",
    "device_info",
    "metrics",
    "flags",
    "app",
    "page",
    "categories",
    "ad_impressions",
    "consent",
    "cart",
    "user_agent",
    "server_host",
    "response_bytes",
  };

  private static final Map<String, Integer> FIELD_INDEX = new HashMap<>();
  private static final byte[][] FIRST_KEYS = new byte[FIELDS.length][];
  private static final byte[][] NEXT_KEYS = new byte[FIELDS.length][];

  static {
    for (int i = 0; i < FIELDS.length; i++) {
      FIELD_INDEX.put(FIELDS[i], i);
      FIRST_KEYS[i] = JsonBuffer.key(FIELDS[i]);
      NEXT_KEYS[i] = JsonBuffer.nextKey(FIELDS[i]);
    }
  }

  private static final String PAD_FIELD = "payload";
  private static final byte[] PAD_KEY = JsonBuffer.nextKey(PAD_FIELD);
  private static final byte[] BASE36 =
      "0123456789abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int PAD_BLOCK = 16 * 1024;

  // Nested keys.
  private static final byte[] K_COUNTRY = JsonBuffer.key("country");
  private static final byte[] K_AGE = JsonBuffer.nextKey("age");
  private static final byte[] K_GENDER = JsonBuffer.nextKey("gender");
  private static final byte[] K_LANGUAGE = JsonBuffer.nextKey("language");
  private static final byte[] K_REGION = JsonBuffer.nextKey("region");
  private static final byte[] K_CITY = JsonBuffer.nextKey("city");
  private static final byte[] K_INCOME = JsonBuffer.nextKey("income_band");
  private static final byte[] K_STUDENT = JsonBuffer.nextKey("is_student");
  private static final byte[] K_LAT = JsonBuffer.key("lat");
  private static final byte[] K_LON = JsonBuffer.nextKey("lon");
  private static final byte[] K_TIMEZONE = JsonBuffer.nextKey("timezone");
  private static final byte[] K_POSTAL = JsonBuffer.nextKey("postal_code");
  private static final byte[] K_SCREEN = JsonBuffer.key("screen");
  private static final byte[] K_WIDTH = JsonBuffer.key("width");
  private static final byte[] K_HEIGHT = JsonBuffer.nextKey("height");
  private static final byte[] K_DENSITY = JsonBuffer.nextKey("density");
  private static final byte[] K_HARDWARE = JsonBuffer.nextKey("hardware");
  private static final byte[] K_CORES = JsonBuffer.key("cpu_cores");
  private static final byte[] K_MEMORY = JsonBuffer.nextKey("memory_gb");
  private static final byte[] K_MODEL = JsonBuffer.nextKey("model");
  private static final byte[] K_NETWORK = JsonBuffer.nextKey("network");
  private static final byte[] K_TYPE = JsonBuffer.key("type");
  private static final byte[] K_CARRIER = JsonBuffer.nextKey("carrier");
  private static final byte[] K_RTT = JsonBuffer.nextKey("rtt_ms");
  private static final byte[] K_CPU_MS = JsonBuffer.key("cpu_ms");
  private static final byte[] K_DB_CALLS = JsonBuffer.nextKey("db_calls");
  private static final byte[] K_CACHE_HITS = JsonBuffer.nextKey("cache_hits");
  private static final byte[] K_CACHE_MISSES = JsonBuffer.nextKey("cache_misses");
  private static final byte[] K_BETA = JsonBuffer.key("beta_user");
  private static final byte[] K_DARK = JsonBuffer.nextKey("dark_mode");
  private static final byte[] K_NEW_CHECKOUT = JsonBuffer.nextKey("new_checkout");
  private static final byte[] K_APP_NAME = JsonBuffer.key("name");
  private static final byte[] K_VERSION = JsonBuffer.nextKey("version");
  private static final byte[] K_PLATFORM = JsonBuffer.nextKey("platform");
  private static final byte[] K_TITLE = JsonBuffer.key("title");
  private static final byte[] K_SECTION = JsonBuffer.nextKey("section");
  private static final byte[] K_LOAD = JsonBuffer.nextKey("load_time_ms");
  private static final byte[] K_AD_ID = JsonBuffer.key("ad_id");
  private static final byte[] K_CAMPAIGN = JsonBuffer.nextKey("campaign");
  private static final byte[] K_POSITION = JsonBuffer.nextKey("position");
  private static final byte[] K_CLICKED = JsonBuffer.nextKey("clicked");
  private static final byte[] K_CPM = JsonBuffer.nextKey("cpm");
  private static final byte[] K_GDPR = JsonBuffer.key("gdpr");
  private static final byte[] K_CCPA = JsonBuffer.nextKey("ccpa");
  private static final byte[] K_ITEMS = JsonBuffer.key("items");
  private static final byte[] K_TOTAL = JsonBuffer.nextKey("total");
  private static final byte[] K_CURRENCY = JsonBuffer.nextKey("currency");
  private static final byte[] WEB_HOST = {'"', 'w', 'e', 'b', '-'};

  private final JsonBuffer out = new JsonBuffer(8192);
  private final byte[] padBlock = new byte[PAD_BLOCK];
  private final int recordBytes;
  private final int fieldCount;
  private long state;

  /**
   * @param seed the random stream; the same seed gives the same records
   * @param recordBytes target size of a record, {@value #MIN_RECORD_BYTES} to {@value
   *     #MAX_RECORD_BYTES}
   */
  public EventGenerator(long seed, int recordBytes) {
    if (recordBytes < MIN_RECORD_BYTES || recordBytes > MAX_RECORD_BYTES) {
      throw new IllegalArgumentException(
          "Record size must be between "
              + MIN_RECORD_BYTES
              + " and "
              + MAX_RECORD_BYTES
              + " bytes, not "
              + recordBytes);
    }
    this.recordBytes = recordBytes;
    this.state = seed ^ 0x5DEECE66DL;
    for (int i = 0; i < PAD_BLOCK; i++) {
      padBlock[i] = BASE36[nextInt(36)];
    }
    this.fieldCount = fieldsFitting(seed, recordBytes);
  }

  private EventGenerator(long seed) {
    this.recordBytes = 0;
    this.state = seed;
    this.fieldCount = FIELDS.length;
  }

  /** The average fields-only size of the first k fields decides how many are kept. */
  private static int fieldsFitting(long seed, int recordBytes) {
    EventGenerator probe = new EventGenerator(seed * 31 + 7);
    int samples = 256;
    long[] ends = new long[FIELDS.length];
    int[] one = new int[FIELDS.length];
    for (int s = 0; s < samples; s++) {
      probe.write(0, 1_700_000_000_000L + s, null, one);
      for (int i = 0; i < ends.length; i++) {
        ends[i] += one[i];
      }
    }
    int keep = 2;
    while (keep < FIELDS.length && ends[keep] / samples + 1 <= recordBytes) {
      keep++;
    }
    return keep;
  }

  /** Top-level generated fields kept for the target size (the padding not counted). */
  public int fieldCount() {
    return fieldCount;
  }

  public int recordBytes() {
    return recordBytes;
  }

  /** The buffer the last record was written to, from index 0; overwritten by the next call. */
  public byte[] buffer() {
    return out.buf;
  }

  /**
   * Writes the next record into {@link #buffer()}.
   *
   * @return its length in bytes
   */
  public int next(long eventTimeMs) {
    return write(recordBytes, eventTimeMs, null, null);
  }

  /**
   * Writes the next record with some top-level fields replaced: a generated field of the same name
   * takes the given value, other names are added. Values may be null, booleans, numbers, strings,
   * maps, lists and arrays of these.
   *
   * @return its length in bytes
   */
  public int next(long eventTimeMs, Map<String, ?> overrides) {
    return write(recordBytes, eventTimeMs, overrides, null);
  }

  private int write(int target, long ts, Map<String, ?> overrides, int[] ends) {
    JsonBuffer o = out;
    o.reset();
    o.raw('{');
    int fields = ends != null ? FIELDS.length : fieldCount;
    for (int f = 0; f < fields; f++) {
      o.raw(f == 0 ? FIRST_KEYS[f] : NEXT_KEYS[f]);
      if (overrides != null && overrides.containsKey(FIELDS[f])) {
        o.value(overrides.get(FIELDS[f]));
      } else {
        field(f, ts);
      }
      if (ends != null) {
        ends[f] = o.pos;
      }
    }
    if (overrides != null) {
      for (Map.Entry<String, ?> e : overrides.entrySet()) {
        Integer index = FIELD_INDEX.get(e.getKey());
        if (index == null || index >= fields) {
          o.raw(',');
          o.raw(JsonBuffer.quoted(e.getKey()));
          o.raw(':');
          o.value(e.getValue());
        }
      }
    }
    int room = target - o.pos - 1 - PAD_KEY.length - 2;
    if (room > 0 && (overrides == null || !overrides.containsKey(PAD_FIELD))) {
      o.raw(PAD_KEY);
      o.raw('"');
      int from = nextInt(PAD_BLOCK);
      while (room > 0) {
        int n = Math.min(room, PAD_BLOCK - from);
        o.raw(padBlock, from, n);
        room -= n;
        from = 0;
      }
      o.raw('"');
    }
    o.raw('}');
    return o.pos;
  }

  private void field(int f, long ts) {
    JsonBuffer o = out;
    switch (f) {
      case 0 -> base36(13);
      case 1 -> o.number(ts);
      case 2 -> Vocabulary.STATUS.write(o, next());
      case 3 -> Vocabulary.DEVICES.write(o, next());
      case 4 -> o.number(duration());
      case 5 -> demographics();
      case 6 -> Vocabulary.BROWSERS.write(o, next());
      case 7 -> hex(16);
      case 8 -> o.number(latency());
      case 9 -> o.number(duration() / 1000);
      case 10 -> Vocabulary.EVENT_TYPES.write(o, next());
      case 11 -> ip();
      case 12 -> o.number(1 + (long) (1_000_000 * sq(nextDouble())));
      case 13 -> base36(16);
      case 14 -> o.number(ts + 5 + nextInt(400));
      case 15 -> Vocabulary.OS_NAMES.write(o, next());
      case 16 -> Vocabulary.OS_VERSIONS.write(o, next());
      case 17 -> Vocabulary.BROWSER_VERSIONS.write(o, next());
      case 18 -> Vocabulary.PAGES.write(o, next());
      case 19 -> orNull(Vocabulary.REFERRERS, 3);
      case 20 -> Vocabulary.DOMAINS.write(o, next());
      case 21 -> Vocabulary.METHODS.write(o, next());
      case 22 -> o.bool(nextInt(10) < 6);
      case 23 -> o.bool(nextInt(50) == 0);
      case 24 -> o.bool(nextInt(10) < 6);
      case 25 -> o.decimal(nextInt(10_000), 2);
      case 26 -> {
        if (nextInt(10) == 0) {
          o.decimal(99 + nextInt(50_000), 2);
        } else {
          o.nullValue();
        }
      }
      case 27 -> orNull(Vocabulary.CURRENCIES, 8);
      case 28 -> {
        if (nextInt(20) == 0) {
          o.number(1000 + nextInt(60));
        } else {
          o.nullValue();
        }
      }
      case 29 -> orNull(Vocabulary.QUERIES, 4);
      case 30 -> testScores();
      case 31 -> list(Vocabulary.TAGS, 2 + nextInt(4));
      case 32 -> geo();
      case 33 -> deviceInfo();
      case 34 -> metrics();
      case 35 -> flags();
      case 36 -> app();
      case 37 -> page();
      case 38 -> list(Vocabulary.SECTIONS, 1 + nextInt(3));
      case 39 -> adImpressions();
      case 40 -> consent();
      case 41 -> cart();
      case 42 -> Vocabulary.USER_AGENTS.write(o, next());
      case 43 -> serverHost();
      case 44 -> o.number((long) (5_000 * -Math.log(1 - nextDouble())) + 120);
      default -> throw new IllegalStateException("No field " + f);
    }
  }

  private void demographics() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_COUNTRY);
    Vocabulary.COUNTRIES.write(o, next());
    o.raw(K_AGE);
    o.number(13 + (long) (60 * sq(nextDouble())));
    o.raw(K_GENDER);
    Vocabulary.GENDERS.write(o, next());
    o.raw(K_LANGUAGE);
    Vocabulary.LANGUAGES.write(o, next());
    o.raw(K_REGION);
    Vocabulary.REGIONS.write(o, next());
    o.raw(K_CITY);
    Vocabulary.CITIES.write(o, next());
    o.raw(K_INCOME);
    Vocabulary.INCOME_BANDS.write(o, next());
    o.raw(K_STUDENT);
    o.bool(nextInt(5) == 0);
    o.raw('}');
  }

  private void geo() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_LAT);
    o.decimal(nextInt(1_800_000) - 900_000, 4);
    o.raw(K_LON);
    o.decimal(nextInt(3_600_000) - 1_800_000, 4);
    o.raw(K_TIMEZONE);
    Vocabulary.TIMEZONES.write(o, next());
    o.raw(K_POSTAL);
    o.raw('"');
    o.padded(nextInt(100_000), 5);
    o.raw('"');
    o.raw('}');
  }

  private void deviceInfo() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_SCREEN);
    o.raw('{');
    o.raw(K_WIDTH);
    o.number(320 + 16 * nextInt(200));
    o.raw(K_HEIGHT);
    o.number(480 + 16 * nextInt(120));
    o.raw(K_DENSITY);
    o.decimal(100 + 25 * nextInt(10), 2);
    o.raw('}');
    o.raw(K_HARDWARE);
    o.raw('{');
    o.raw(K_CORES);
    o.number(2L << nextInt(4));
    o.raw(K_MEMORY);
    o.number(2L << nextInt(5));
    o.raw(K_MODEL);
    Vocabulary.MODELS.write(o, next());
    o.raw('}');
    o.raw(K_NETWORK);
    o.raw('{');
    o.raw(K_TYPE);
    Vocabulary.NETWORKS.write(o, next());
    o.raw(K_CARRIER);
    orNull(Vocabulary.CARRIERS, 3);
    o.raw(K_RTT);
    o.number(latency() / 4 + 5);
    o.raw('}');
    o.raw('}');
  }

  private void testScores() {
    JsonBuffer o = out;
    int n = 2 + nextInt(4);
    int first = nextInt(Vocabulary.STUDENTS.size());
    o.raw('{');
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        o.raw(',');
      }
      // Consecutive pool entries: distinct names in one record.
      Vocabulary.STUDENTS.writeAt(o, (first + i) % Vocabulary.STUDENTS.size());
      o.raw(':');
      o.number(40 + nextInt(61));
    }
    o.raw('}');
  }

  private void metrics() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_CPU_MS);
    o.decimal(nextInt(500_000), 3);
    o.raw(K_DB_CALLS);
    o.number(nextInt(12));
    o.raw(K_CACHE_HITS);
    o.number(nextInt(40));
    o.raw(K_CACHE_MISSES);
    o.number(nextInt(6));
    o.raw('}');
  }

  private void flags() {
    JsonBuffer o = out;
    long r = next();
    o.raw('{');
    o.raw(K_BETA);
    o.bool((r & 0x7) == 0);
    o.raw(K_DARK);
    o.bool((r & 0x30) == 0);
    o.raw(K_NEW_CHECKOUT);
    o.bool((r & 0x100) != 0);
    o.raw('}');
  }

  private void app() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_APP_NAME);
    Vocabulary.APP_NAMES.write(o, next());
    o.raw(K_VERSION);
    Vocabulary.APP_VERSIONS.write(o, next());
    o.raw(K_PLATFORM);
    Vocabulary.PLATFORMS.write(o, next());
    o.raw('}');
  }

  private void page() {
    JsonBuffer o = out;
    o.raw('{');
    o.raw(K_TITLE);
    Vocabulary.TITLES.write(o, next());
    o.raw(K_SECTION);
    Vocabulary.SECTIONS.write(o, next());
    o.raw(K_LOAD);
    o.number(latency() * 3 + 40);
    o.raw('}');
  }

  private void adImpressions() {
    JsonBuffer o = out;
    int n = nextInt(3);
    o.raw('[');
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        o.raw(',');
      }
      o.raw('{');
      o.raw(K_AD_ID);
      o.number(100_000 + nextInt(900_000));
      o.raw(K_CAMPAIGN);
      Vocabulary.CAMPAIGNS.write(o, next());
      o.raw(K_POSITION);
      o.number(i + 1);
      o.raw(K_CLICKED);
      o.bool(nextInt(40) == 0);
      o.raw(K_CPM);
      o.decimal(50 + nextInt(2000), 2);
      o.raw('}');
    }
    o.raw(']');
  }

  private void consent() {
    JsonBuffer o = out;
    long r = next();
    o.raw('{');
    o.raw(K_GDPR);
    o.bool((r & 1) == 0);
    o.raw(K_CCPA);
    o.bool((r & 6) != 0);
    o.raw('}');
  }

  private void cart() {
    JsonBuffer o = out;
    if (nextInt(4) != 0) {
      o.nullValue();
      return;
    }
    o.raw('{');
    o.raw(K_ITEMS);
    o.number(1 + nextInt(8));
    o.raw(K_TOTAL);
    o.decimal(199 + nextInt(100_000), 2);
    o.raw(K_CURRENCY);
    Vocabulary.CURRENCIES.write(o, next());
    o.raw('}');
  }

  private void serverHost() {
    JsonBuffer o = out;
    o.raw(WEB_HOST);
    o.padded(nextInt(1000), 3);
    o.raw('.');
    Vocabulary.DATACENTERS.writeUnquoted(o, next());
    o.raw('"');
  }

  private void ip() {
    JsonBuffer o = out;
    long r = next();
    o.raw('"');
    o.number(1 + (r & 0xFF) % 223);
    o.raw('.');
    o.number((r >>> 8) & 0xFF);
    o.raw('.');
    o.number((r >>> 16) & 0xFF);
    o.raw('.');
    o.number(1 + ((r >>> 24) & 0xFF) % 254);
    o.raw('"');
  }

  private void list(ValuePool pool, int n) {
    JsonBuffer o = out;
    o.raw('[');
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        o.raw(',');
      }
      pool.write(o, next());
    }
    o.raw(']');
  }

  private void orNull(ValuePool pool, int oneInNull) {
    long r = next();
    if ((r >>> 33) % oneInNull == 0) {
      out.nullValue();
    } else {
      pool.write(out, r);
    }
  }

  private void base36(int chars) {
    JsonBuffer o = out;
    o.ensure(chars + 2);
    byte[] b = o.buf;
    int p = o.pos;
    b[p++] = '"';
    long r = next();
    for (int i = 0; i < chars; i++) {
      if (i == 8) {
        r = next();
      }
      // The high 32 bits, scaled to [0, 36): unbiased enough for synthetic ids.
      b[p++] = BASE36[(int) (((r >>> 32) * 36) >>> 32)];
      r *= 0x9E3779B97F4A7C15L;
    }
    b[p++] = '"';
    o.pos = p;
  }

  private void hex(int chars) {
    JsonBuffer o = out;
    o.ensure(chars + 2);
    byte[] b = o.buf;
    int p = o.pos;
    b[p++] = '"';
    long r = 0;
    for (int i = 0; i < chars; i++) {
      if ((i & 15) == 0) {
        r = next();
      }
      b[p++] = HEX[(int) (r & 15)];
      r >>>= 4;
    }
    b[p++] = '"';
    o.pos = p;
  }

  /** Milliseconds: mostly seconds, some minutes, a few long sessions. */
  private long duration() {
    int bucket = nextInt(100);
    double mean = bucket < 70 ? 2_000 : bucket < 95 ? 60_000 : 1_800_000;
    return (long) (mean * -Math.log(1 - nextDouble()));
  }

  private long latency() {
    return 3 + (long) (nextInt(10) == 0 ? 800 * -Math.log(1 - nextDouble()) : 60 * nextDouble());
  }

  private static double sq(double d) {
    return d * d;
  }

  private long next() {
    // SplitMix64.
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private int nextInt(int bound) {
    return (int) (((next() >>> 32) * bound) >>> 32);
  }

  private double nextDouble() {
    return (next() >>> 11) * 0x1.0p-53;
  }
}
