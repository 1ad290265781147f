package io.spyglass.core.partial;

import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.Aggregation.MetricKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * GROUP BY, GROUP ALL (no keys) and DISTINCT (no metrics): groups keyed by a tuple of values, each
 * with its metrics.
 *
 * <p><b>Hot path.</b> Per record the executor evaluates the key into a reusable {@code Object[]}
 * and calls {@link #group(Object[])}, which returns the group's slot without allocating when the
 * group exists (the array is copied only when a new group is inserted), or -1 when the group is
 * sampled out. It then calls, per metric index {@code i}, exactly one of: {@link #count} for COUNT
 * (COUNT(*) for every row, COUNT(x) for non-null x), {@link #add} for SUM and AVG (each call counts
 * one value for AVG), {@link #min}, {@link #max}, or {@link #distinct} for COUNT_DISTINCT. Nulls
 * are skipped by the caller. A slot is valid only until the next {@code group}, {@code merge} or
 * {@code reset} call.
 *
 * <p><b>Sampling.</b> Up to {@code capacity} groups are kept exactly. Beyond that the state keeps a
 * uniform sample of groups, like Bullet's tuple sketch: the groups whose 64-bit key hash is
 * smallest, with theta the smallest hash dropped; groups hashing at or above theta are refused.
 * Kept groups have exact metrics, and any split of a stream merges to the same groups as the whole
 * stream. Up to {@code 2 * capacity} groups may be held between trims; rows, metadata and the
 * encoding always show at most {@code capacity}.
 *
 * <p>Results follow Bullet: COUNT is a LONG (0 without rows), SUM/MIN/MAX/AVG are DOUBLE or null
 * when the group saw no value, COUNT_DISTINCT is its rounded estimate as a LONG. GROUP ALL always
 * gives exactly one row.
 */
public final class GroupPartial implements Partial {
  private static final Object[][] NO_KEYS = new Object[0][];
  private static final long[] NO_LONGS = new long[0];
  private static final double[] NO_DOUBLES = new double[0];
  private static final Sketches.Distinct[] NO_UNIONS = new Sketches.Distinct[0];

  /** One empty cell: a lookup in a partial without groups finds nothing. Never written. */
  private static final int[] NO_INDEX = new int[1];

  private final String[] keyNames;
  private final MetricKind[] kinds;
  private final String[] metricNames;
  private final int capacity;
  private final int countDistinctEntries;
  private final int m;
  private final int trimAt;

  private int size;
  private long thetaLong = Long.MAX_VALUE;
  private Object[][] keys;
  private long[] hashes;
  private double[] values;
  private long[] counts;
  private Sketches.Distinct[] distincts;

  /** Open addressing over {@link #hashes}: slot + 1, 0 when empty; at most half full. */
  private int[] index;

  /**
   * @param keyNames result columns of the key values, in key order (empty for GROUP ALL)
   * @param metrics the metrics, in result column order (empty for DISTINCT)
   * @param capacity groups kept exactly ({@code QueryLimits.maxGroups}, Bullet's 512)
   * @param countDistinctEntries nominal entries of per-group COUNT DISTINCT theta sketches, a power
   *     of 2 of at least 16
   */
  public GroupPartial(
      List<String> keyNames,
      List<Aggregation.Metric> metrics,
      int capacity,
      int countDistinctEntries) {
    this(
        keyNames.toArray(new String[0]),
        metrics.stream().map(Aggregation.Metric::kind).toArray(MetricKind[]::new),
        metrics.stream().map(Aggregation.Metric::name).toArray(String[]::new),
        capacity,
        countDistinctEntries);
  }

  GroupPartial(
      String[] keyNames,
      MetricKind[] kinds,
      String[] metricNames,
      int capacity,
      int countDistinctEntries) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    if (!SketchImages.isPowerOfTwo(countDistinctEntries) || countDistinctEntries < 16) {
      throw new IllegalArgumentException(
          "count distinct entries must be a power of 2 of at least 16: " + countDistinctEntries);
    }
    if (kinds.length != metricNames.length) {
      throw new IllegalArgumentException("metric kinds and names differ in number");
    }
    for (int i = 0; i < kinds.length; i++) {
      Objects.requireNonNull(kinds[i], "metric kind");
      Objects.requireNonNull(metricNames[i], "metric name");
    }
    for (String k : keyNames) {
      Objects.requireNonNull(k, "key name");
    }
    this.keyNames = keyNames;
    this.kinds = kinds;
    this.metricNames = metricNames;
    this.capacity = capacity;
    this.countDistinctEntries = countDistinctEntries;
    this.m = kinds.length;
    this.trimAt = (int) Math.min(2L * capacity, Integer.MAX_VALUE / 4);
    // shared empty arrays until the first group: thousands of idle queries hold no group arrays
    this.keys = NO_KEYS;
    this.hashes = NO_LONGS;
    this.values = NO_DOUBLES;
    this.counts = NO_LONGS;
    this.distincts = hasDistinct() ? NO_UNIONS : null;
    this.index = NO_INDEX;
  }

  private boolean hasDistinct() {
    for (MetricKind k : kinds) {
      if (k == MetricKind.COUNT_DISTINCT) {
        return true;
      }
    }
    return false;
  }

  public List<String> keyNames() {
    return List.of(keyNames);
  }

  public List<MetricKind> metricKinds() {
    return List.of(kinds);
  }

  public List<String> metricNames() {
    return List.of(metricNames);
  }

  public int capacity() {
    return capacity;
  }

  public int countDistinctEntries() {
    return countDistinctEntries;
  }

  /** Groups held now (may exceed capacity by up to capacity between trims). */
  public int size() {
    return size;
  }

  /** The sampling threshold as a fraction: 1.0 while every group is kept. */
  public double theta() {
    return thetaLong == Long.MAX_VALUE ? 1.0 : Math.max(1L, thetaLong) / (double) Long.MAX_VALUE;
  }

  // ---------------------------------------------------------------- hot path

  /**
   * The slot of the group whose key values are in {@code key} (element-wise {@code equals}),
   * inserting it if new; -1 when the group is sampled out. {@code key} is read, never kept: the
   * caller may reuse it.
   */
  public int group(Object[] key) {
    if (key.length != keyNames.length) {
      throw new IllegalArgumentException(
          "key has " + key.length + " values, expected " + keyNames.length);
    }
    long h = Hashing.sampleHash(key);
    if (h >= thetaLong) {
      return -1;
    }
    int s = find(key, h);
    return s >= 0 ? s : insert(key.clone(), h);
  }

  /** COUNT: one more row (COUNT(*)) or non-null value (COUNT(x)). */
  public void count(int slot, int metric) {
    counts[slot * m + metric]++;
  }

  /** SUM or AVG: adds a value (and counts it, for AVG). */
  public void add(int slot, int metric, double v) {
    int j = slot * m + metric;
    values[j] += v;
    counts[j]++;
  }

  public void min(int slot, int metric, double v) {
    int j = slot * m + metric;
    values[j] = counts[j]++ == 0 ? v : Math.min(values[j], v);
  }

  public void max(int slot, int metric, double v) {
    int j = slot * m + metric;
    values[j] = counts[j]++ == 0 ? v : Math.max(values[j], v);
  }

  /** COUNT_DISTINCT: one tuple, given as the 64-bit hash of its values. */
  public void distinct(int slot, int metric, long tupleHash) {
    int j = slot * m + metric;
    Sketches.Distinct u = distincts[j];
    if (u == null) {
      u = new Sketches.Distinct(countDistinctEntries);
      distincts[j] = u;
    }
    u.update(tupleHash);
  }

  private int find(Object[] key, long h) {
    int mask = index.length - 1;
    int pos = (int) (h ^ (h >>> 32)) & mask;
    int e;
    while ((e = index[pos]) != 0) {
      int s = e - 1;
      if (hashes[s] == h && Arrays.equals(keys[s], key)) {
        return s;
      }
      pos = (pos + 1) & mask;
    }
    return -1;
  }

  /** Inserts a group known to be absent; {@code key} is owned from now on. */
  private int insert(Object[] key, long h) {
    if (size >= trimAt) {
      trim(capacity);
      if (h >= thetaLong) {
        return -1;
      }
    }
    ensureGroupCapacity(size + 1);
    if (index == NO_INDEX) {
      index = new int[16];
    }
    int s = size++;
    keys[s] = key;
    hashes[s] = h;
    place(s);
    if (size * 2 > index.length) {
      index = new int[index.length * 2];
      for (int i = 0; i < size; i++) {
        place(i);
      }
    }
    return s;
  }

  private void place(int s) {
    long h = hashes[s];
    int mask = index.length - 1;
    int pos = (int) (h ^ (h >>> 32)) & mask;
    while (index[pos] != 0) {
      pos = (pos + 1) & mask;
    }
    index[pos] = s + 1;
  }

  private void ensureGroupCapacity(int groups) {
    if (groups <= keys.length) {
      return;
    }
    int n = (int) Math.min(Math.max(groups, Math.max(8, 2L * keys.length)), (long) trimAt + 1);
    keys = Arrays.copyOf(keys, n);
    hashes = Arrays.copyOf(hashes, n);
    values = Arrays.copyOf(values, n * m);
    counts = Arrays.copyOf(counts, n * m);
    if (distincts != null) {
      distincts = Arrays.copyOf(distincts, n * m);
    }
  }

  /** Keeps the {@code target} smallest hashes, lowering theta to the smallest one dropped. */
  private void trim(int target) {
    if (size <= target) {
      return;
    }
    long[] sorted = Arrays.copyOf(hashes, size);
    Arrays.sort(sorted);
    thetaLong = Math.min(thetaLong, sorted[target]);
    dropAtOrAboveTheta();
  }

  private void dropAtOrAboveTheta() {
    int w = 0;
    for (int s = 0; s < size; s++) {
      if (hashes[s] < thetaLong) {
        if (w != s) {
          keys[w] = keys[s];
          hashes[w] = hashes[s];
          System.arraycopy(values, s * m, values, w * m, m);
          System.arraycopy(counts, s * m, counts, w * m, m);
          if (distincts != null) {
            System.arraycopy(distincts, s * m, distincts, w * m, m);
          }
        }
        w++;
      }
    }
    if (w == size) {
      return;
    }
    clearSlots(w, size);
    size = w;
    Arrays.fill(index, 0);
    for (int s = 0; s < size; s++) {
      place(s);
    }
  }

  private void clearSlots(int from, int to) {
    Arrays.fill(keys, from, to, null);
    Arrays.fill(values, from * m, to * m, 0.0);
    Arrays.fill(counts, from * m, to * m, 0L);
    if (distincts != null) {
      Arrays.fill(distincts, from * m, to * m, null);
    }
  }

  // ---------------------------------------------------------------- merge

  @Override
  public PartialKind kind() {
    return PartialKind.GROUP;
  }

  @Override
  public void merge(Partial other) {
    if (!(other instanceof GroupPartial) || !sameParameters((GroupPartial) other)) {
      throw new IllegalArgumentException(
          "cannot merge " + RawPartial.describe(other) + " into " + this);
    }
    GroupPartial o = (GroupPartial) other;
    if (o.thetaLong < thetaLong) {
      thetaLong = o.thetaLong;
      dropAtOrAboveTheta();
    }
    for (int os = 0; os < o.size; os++) {
      long h = o.hashes[os];
      if (h >= thetaLong) {
        continue;
      }
      int s = find(o.keys[os], h);
      if (s < 0) {
        // Key arrays are never changed once inserted, so they may be shared.
        s = insert(o.keys[os], h);
        if (s < 0) {
          continue;
        }
      }
      mergeMetrics(s, o, os);
    }
    trim(capacity);
  }

  private boolean sameParameters(GroupPartial o) {
    return capacity == o.capacity
        && countDistinctEntries == o.countDistinctEntries
        && Arrays.equals(keyNames, o.keyNames)
        && Arrays.equals(kinds, o.kinds)
        && Arrays.equals(metricNames, o.metricNames);
  }

  private void mergeMetrics(int s, GroupPartial o, int os) {
    for (int i = 0; i < m; i++) {
      int j = s * m + i;
      int oj = os * m + i;
      long oc = o.counts[oj];
      switch (kinds[i]) {
        case COUNT:
          counts[j] += oc;
          break;
        case SUM:
        case AVG:
          values[j] += o.values[oj];
          counts[j] += oc;
          break;
        case MIN:
          if (oc > 0) {
            values[j] = counts[j] == 0 ? o.values[oj] : Math.min(values[j], o.values[oj]);
            counts[j] += oc;
          }
          break;
        case MAX:
          if (oc > 0) {
            values[j] = counts[j] == 0 ? o.values[oj] : Math.max(values[j], o.values[oj]);
            counts[j] += oc;
          }
          break;
        case COUNT_DISTINCT:
          Sketches.Distinct ou = o.distincts[oj];
          if (ou != null) {
            if (distincts[j] == null) {
              distincts[j] = new Sketches.Distinct(countDistinctEntries);
            }
            distincts[j].union(ou);
          }
          break;
        default:
          throw new IllegalStateException("unknown metric kind " + kinds[i]);
      }
    }
  }

  // ---------------------------------------------------------------- results

  /** Slots in ascending hash order: a stable order whatever the order of arrival or merging. */
  private int[] orderedSlots() {
    Integer[] boxed = new Integer[size];
    for (int i = 0; i < size; i++) {
      boxed[i] = i;
    }
    Arrays.sort(boxed, (a, b) -> Long.compare(hashes[a], hashes[b]));
    int[] out = new int[size];
    for (int i = 0; i < size; i++) {
      out[i] = boxed[i];
    }
    return out;
  }

  @Override
  public List<Map<String, Object>> rows() {
    trim(capacity);
    List<Map<String, Object>> rows = new ArrayList<>(Math.max(1, size));
    if (keyNames.length == 0 && size == 0) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (int i = 0; i < m; i++) {
        row.put(metricNames[i], kinds[i] == MetricKind.COUNT || isDistinct(i) ? 0L : null);
      }
      rows.add(row);
      return rows;
    }
    for (int s : orderedSlots()) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (int k = 0; k < keyNames.length; k++) {
        row.put(keyNames[k], keys[s][k]);
      }
      for (int i = 0; i < m; i++) {
        row.put(metricNames[i], metricValue(s, i));
      }
      rows.add(row);
    }
    return rows;
  }

  private boolean isDistinct(int i) {
    return kinds[i] == MetricKind.COUNT_DISTINCT;
  }

  private Object metricValue(int s, int i) {
    int j = s * m + i;
    long c = counts[j];
    switch (kinds[i]) {
      case COUNT:
        return c;
      case SUM:
      case MIN:
      case MAX:
        return c == 0 ? null : values[j];
      case AVG:
        return c == 0 ? null : values[j] / c;
      case COUNT_DISTINCT:
        Sketches.Distinct u = distincts[j];
        return u == null ? 0L : Math.round(u.estimate());
      default:
        throw new IllegalStateException("unknown metric kind " + kinds[i]);
    }
  }

  /**
   * For GROUP BY and DISTINCT: wasEstimated, family TUPLE, theta, uniquesEstimate and the bounds at
   * 1, 2 and 3 standard deviations of the number of groups. With COUNT(DISTINCT ...) metrics, also
   * estimatedColumns: the metrics whose value is an estimate in some group (for GROUP ALL, with
   * wasEstimated true when there is one). Otherwise empty for GROUP ALL, which is exact.
   */
  @Override
  public Map<String, Object> metadata() {
    List<String> estimatedColumns = hasDistinct() ? estimatedColumns() : null;
    if (keyNames.length == 0) {
      if (estimatedColumns == null) {
        return Collections.emptyMap();
      }
      Map<String, Object> meta = new LinkedHashMap<>();
      meta.put(MetadataKeys.WAS_ESTIMATED, !estimatedColumns.isEmpty());
      meta.put(MetadataKeys.ESTIMATED_COLUMNS, estimatedColumns);
      return meta;
    }
    trim(capacity);
    double theta = theta();
    boolean estimated = thetaLong != Long.MAX_VALUE;
    long n = size;
    boolean noData = size == 0 && !estimated;
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(MetadataKeys.WAS_ESTIMATED, estimated);
    meta.put(MetadataKeys.FAMILY, MetadataKeys.FAMILY_TUPLE);
    meta.put(MetadataKeys.THETA, theta);
    meta.put(MetadataKeys.UNIQUES_ESTIMATE, n / theta);
    meta.put(
        MetadataKeys.STANDARD_DEVIATIONS,
        MetadataKeys.standardDeviations(
            sd -> Sketches.upperBound(n, theta, sd, noData),
            sd -> Sketches.lowerBound(n, theta, sd, noData)));
    if (estimatedColumns != null) {
      meta.put(MetadataKeys.ESTIMATED_COLUMNS, estimatedColumns);
    }
    return meta;
  }

  /** The COUNT(DISTINCT ...) metrics whose value is an estimate in at least one group. */
  private List<String> estimatedColumns() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      if (isDistinct(i)) {
        for (int g = 0; g < size; g++) {
          Sketches.Distinct u = distincts[g * m + i];
          if (u != null && u.isEstimated()) {
            out.add(metricNames[i]);
            break;
          }
        }
      }
    }
    return out;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public void reset() {
    clearSlots(0, size);
    size = 0;
    thetaLong = Long.MAX_VALUE;
    if (index != NO_INDEX) {
      Arrays.fill(index, 0);
    }
  }

  @Override
  public GroupPartial emptyCopy() {
    return new GroupPartial(keyNames, kinds, metricNames, capacity, countDistinctEntries);
  }

  // ---------------------------------------------------------------- encoding

  @Override
  public void writeTo(PartialWriter out) {
    trim(capacity);
    out.writeVarInt(keyNames.length);
    for (String k : keyNames) {
      out.writeString(k);
    }
    out.writeVarInt(m);
    for (int i = 0; i < m; i++) {
      out.writeByte(kinds[i].ordinal());
      out.writeString(metricNames[i]);
    }
    out.writeVarInt(capacity);
    out.writeVarInt(countDistinctEntries);
    out.writeLong(thetaLong);
    out.writeVarInt(size);
    for (int s : orderedSlots()) {
      for (Object v : keys[s]) {
        ValueCodec.write(out, v);
      }
      for (int i = 0; i < m; i++) {
        int j = s * m + i;
        if (isDistinct(i)) {
          Sketches.Distinct u = distincts[j];
          out.writeBytes(u == null ? new byte[0] : u.toByteArray());
        } else {
          out.writeVarLong(counts[j]);
          if (kinds[i] != MetricKind.COUNT && counts[j] > 0) {
            out.writeDouble(values[j]);
          }
        }
      }
    }
  }

  static GroupPartial readFrom(PartialReader in) {
    int keyCount = in.readCount(1);
    String[] keyNames = new String[keyCount];
    for (int k = 0; k < keyCount; k++) {
      keyNames[k] = in.readString();
    }
    int m = in.readCount(2);
    MetricKind[] kinds = new MetricKind[m];
    String[] names = new String[m];
    MetricKind[] all = MetricKind.values();
    for (int i = 0; i < m; i++) {
      int ordinal = in.readByte();
      if (ordinal >= all.length) {
        throw new PartialFormatException("unknown metric kind " + ordinal);
      }
      kinds[i] = all[ordinal];
      names[i] = in.readString();
    }
    int capacity = in.readVarInt();
    int cdEntries = in.readVarInt();
    long theta = in.readLong();
    if (theta <= 0) {
      throw new PartialFormatException("bad group theta " + theta);
    }
    GroupPartial p;
    try {
      p = new GroupPartial(keyNames, kinds, names, capacity, cdEntries);
    } catch (IllegalArgumentException e) {
      throw new PartialFormatException(e.getMessage());
    }
    p.thetaLong = theta;
    int groups = in.readCount(Math.max(1, keyCount + m));
    if (groups > capacity) {
      throw new PartialFormatException(groups + " groups exceed the capacity " + capacity);
    }
    for (int g = 0; g < groups; g++) {
      Object[] key = new Object[keyCount];
      for (int k = 0; k < keyCount; k++) {
        key[k] = ValueCodec.read(in);
      }
      long h = Hashing.sampleHash(key);
      if (h >= theta || p.find(key, h) >= 0) {
        throw new PartialFormatException("group " + g + " is duplicated or above theta");
      }
      int s = p.insert(key, h);
      for (int i = 0; i < m; i++) {
        int j = s * m + i;
        if (kinds[i] == MetricKind.COUNT_DISTINCT) {
          byte[] image = in.readBytes();
          if (image.length > 0) {
            Sketches.Distinct u = new Sketches.Distinct(cdEntries);
            SketchImages.unionThetaImage(u, image);
            p.distincts[j] = u;
          }
        } else {
          long c = in.readVarLong();
          if (c < 0) {
            throw new PartialFormatException("negative count in group " + g);
          }
          p.counts[j] = c;
          if (kinds[i] != MetricKind.COUNT && c > 0) {
            p.values[j] = in.readDouble();
          }
        }
      }
    }
    return p;
  }

  @Override
  public String toString() {
    return "GroupPartial(keys="
        + Arrays.toString(keyNames)
        + ", metrics="
        + Arrays.toString(metricNames)
        + ", capacity="
        + capacity
        + ", groups="
        + size
        + ")";
  }
}
