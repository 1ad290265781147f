package io.spyglass.core.partial;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code TOP(k[, minCount], fields...)}: a frequent-items sketch of key tuples. Exact while fewer
 * than {@code 0.75 * maxMapSize} distinct tuples are held; then counts are upper bounds off by at
 * most {@code maximumCountError}, and with Bullet's default error type (no false negatives) every
 * tuple truly above the threshold is reported.
 *
 * <p>Rows: up to {@code k} records {@code {field1: v1, ..., countName: count}}, count being the
 * upper bound as a LONG, sorted by count descending (ties in a fixed order of the values), keeping
 * only counts of at least {@code minCount} (and of at least the maximum error).
 */
public final class TopKPartial implements Partial {
  private final int k;
  private final Optional<Long> minCount;
  private final List<String> fieldNames;
  private final String countName;
  private final int maxMapSize;

  /** Null until first needed: thousands of idle queries hold no sketch. */
  private Sketches.Frequent sketch;

  /*
   * A frequent-items sketch whose purge removed every item reports itself empty, and DataSketches
   * then drops its offset (the count error) and stream length when merging or serializing it. Those
   * are carried here instead, so that no split of a stream loses error or items seen.
   */
  private long extraError;
  private long extraItemsSeen;

  /**
   * @param k most rows emitted
   * @param minCount the smallest count reported, if any
   * @param fieldNames result columns of the tuple values
   * @param countName result column of the count
   * @param maxMapSize maximum map size of the sketch ({@code QueryLimits.topKEntries}), a power of
   *     2 of at least 8
   */
  public TopKPartial(
      int k, Optional<Long> minCount, List<String> fieldNames, String countName, int maxMapSize) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1: " + k);
    }
    if (!SketchImages.isPowerOfTwo(maxMapSize) || maxMapSize < 8) {
      throw new IllegalArgumentException(
          "max map size must be a power of 2 of at least 8: " + maxMapSize);
    }
    this.k = k;
    this.minCount = Objects.requireNonNull(minCount);
    this.fieldNames = List.copyOf(fieldNames);
    this.countName = Objects.requireNonNull(countName);
    this.maxMapSize = maxMapSize;
  }

  private Sketches.Frequent sketch() {
    if (sketch == null) {
      sketch = new Sketches.Frequent(maxMapSize, fieldNames.size());
    }
    return sketch;
  }

  public int k() {
    return k;
  }

  public Optional<Long> minCount() {
    return minCount;
  }

  public List<String> fieldNames() {
    return fieldNames;
  }

  public String countName() {
    return countName;
  }

  public int maxMapSize() {
    return maxMapSize;
  }

  /** Counts one occurrence of {@code key}, which must have one value per field. */
  public void update(GroupKey key) {
    if (key.size() != fieldNames.size()) {
      throw new IllegalArgumentException(
          "key has " + key.size() + " values, expected " + fieldNames.size());
    }
    sketch().update(key);
  }

  /** Counts one occurrence of the tuple {@code values} (copied). */
  public void update(Object[] values) {
    update(GroupKey.of(values));
  }

  @Override
  public PartialKind kind() {
    return PartialKind.TOP_K;
  }

  @Override
  public void merge(Partial other) {
    if (!(other instanceof TopKPartial) || !sameParameters((TopKPartial) other)) {
      throw new IllegalArgumentException(
          "cannot merge " + RawPartial.describe(other) + " into " + this);
    }
    TopKPartial o = (TopKPartial) other;
    extraError += o.extraError;
    extraItemsSeen += o.extraItemsSeen;
    if (o.sketch == null) {
      return;
    }
    if (o.sketch.isEmpty()) {
      extraError += o.sketch.maximumError();
      extraItemsSeen += o.sketch.streamLength();
    } else {
      sketch().merge(o.sketch);
    }
  }

  /** The largest amount by which a reported count may exceed the true count. */
  public long maximumCountError() {
    return (sketch == null ? 0 : sketch.maximumError()) + extraError;
  }

  /** Tuples counted. */
  public long itemsSeen() {
    return (sketch == null ? 0 : sketch.streamLength()) + extraItemsSeen;
  }

  private boolean sameParameters(TopKPartial o) {
    return k == o.k
        && minCount.equals(o.minCount)
        && fieldNames.equals(o.fieldNames)
        && countName.equals(o.countName)
        && maxMapSize == o.maxMapSize;
  }

  @Override
  public void writeTo(PartialWriter out) {
    out.writeVarInt(k);
    out.writeBoolean(minCount.isPresent());
    if (minCount.isPresent()) {
      out.writeSignedVarLong(minCount.get());
    }
    out.writeVarInt(fieldNames.size());
    for (String f : fieldNames) {
      out.writeString(f);
    }
    out.writeString(countName);
    out.writeVarInt(maxMapSize);
    Sketches.Frequent sk = sketch();
    boolean lost = sk.isEmpty();
    out.writeVarLong(extraError + (lost ? sk.maximumError() : 0));
    out.writeVarLong(extraItemsSeen + (lost ? sk.streamLength() : 0));
    out.writeBytes(sk.toByteArray());
  }

  static TopKPartial readFrom(PartialReader in) {
    int k = in.readVarInt();
    Optional<Long> minCount =
        in.readBoolean() ? Optional.of(in.readSignedVarLong()) : Optional.empty();
    int n = in.readCount(1);
    List<String> fields = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      fields.add(in.readString());
    }
    String countName = in.readString();
    int maxMapSize = in.readVarInt();
    long extraError = in.readVarLong();
    long extraItemsSeen = in.readVarLong();
    if (extraError < 0 || extraItemsSeen < 0) {
      throw new PartialFormatException("negative top-k error or items seen");
    }
    byte[] image = in.readBytes();
    TopKPartial p;
    try {
      p = new TopKPartial(k, minCount, fields, countName, maxMapSize);
    } catch (IllegalArgumentException e) {
      throw new PartialFormatException(e.getMessage());
    }
    SketchImages.checkFrequencyImage(image, maxMapSize);
    p.sketch = Sketches.Frequent.fromImage(image, fields.size());
    p.extraError = extraError;
    p.extraItemsSeen = extraItemsSeen;
    return p;
  }

  @Override
  public List<Map<String, Object>> rows() {
    // The sketch keeps rows whose upper bound reaches max(threshold, its own error); the extra
    // error is added to every upper bound.
    long threshold = minCount.isPresent() ? minCount.get() - extraError : -1L;
    List<Sketches.FrequentRow> items = sketch().rows(threshold);
    // Ties are ordered by the encoded values so that rows do not depend on merge order.
    items.sort(
        (a, b) -> {
          int c = Long.compare(b.upperBound(), a.upperBound());
          return c != 0
              ? c
              : Arrays.compare(GroupKeyCodec.encode(a.item()), GroupKeyCodec.encode(b.item()));
        });
    int n = Math.min(k, items.size());
    List<Map<String, Object>> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      GroupKey key = items.get(i).item();
      Map<String, Object> row = new LinkedHashMap<>();
      for (int f = 0; f < fieldNames.size(); f++) {
        row.put(fieldNames.get(f), key.get(f));
      }
      row.put(countName, items.get(i).upperBound() + extraError);
      rows.add(row);
    }
    return rows;
  }

  @Override
  public Map<String, Object> metadata() {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(MetadataKeys.WAS_ESTIMATED, maximumCountError() > 0);
    meta.put(MetadataKeys.FAMILY, MetadataKeys.FAMILY_FREQUENCY);
    meta.put(MetadataKeys.MAXIMUM_COUNT_ERROR, maximumCountError());
    meta.put(MetadataKeys.ACTIVE_ITEMS, sketch == null ? 0 : sketch.activeItems());
    meta.put(MetadataKeys.ITEMS_SEEN, itemsSeen());
    return meta;
  }

  @Override
  public boolean isEmpty() {
    return itemsSeen() == 0;
  }

  @Override
  public void reset() {
    if (sketch != null) {
      sketch.reset();
    }
    extraError = 0;
    extraItemsSeen = 0;
  }

  @Override
  public TopKPartial emptyCopy() {
    return new TopKPartial(k, minCount, fieldNames, countName, maxMapSize);
  }

  @Override
  public String toString() {
    return "TopKPartial(k=" + k + ", fields=" + fieldNames + ", maxMapSize=" + maxMapSize + ")";
  }
}
