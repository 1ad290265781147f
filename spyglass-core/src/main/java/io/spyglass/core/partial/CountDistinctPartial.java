package io.spyglass.core.partial;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code COUNT(DISTINCT ...)}: a theta sketch of the distinct tuples. Exact up to about {@code
 * nominalEntries} distinct values, then an estimate with relative standard error about {@code
 * 1/sqrt(nominalEntries)}.
 */
public final class CountDistinctPartial implements Partial {
  private final int nominalEntries;
  private final String name;

  /** Null until first needed: thousands of idle queries hold no sketch. */
  private Sketches.Distinct union;

  private boolean empty = true;

  /**
   * @param nominalEntries theta sketch size, a power of 2 of at least 16 ({@code
   *     QueryLimits.countDistinctEntries})
   * @param name the result column
   */
  public CountDistinctPartial(int nominalEntries, String name) {
    if (!SketchImages.isPowerOfTwo(nominalEntries) || nominalEntries < 16) {
      throw new IllegalArgumentException(
          "nominal entries must be a power of 2 of at least 16: " + nominalEntries);
    }
    this.nominalEntries = nominalEntries;
    this.name = name;
  }

  private Sketches.Distinct union() {
    if (union == null) {
      union = new Sketches.Distinct(nominalEntries);
    }
    return union;
  }

  public int nominalEntries() {
    return nominalEntries;
  }

  public String name() {
    return name;
  }

  /** Counts one tuple, given as the 64-bit hash of its values. */
  public void update(long tupleHash) {
    union().update(tupleHash);
    empty = false;
  }

  /** Counts one value given as a string. */
  public void update(String value) {
    union().update(value);
    empty = false;
  }

  /** The current estimate of distinct tuples. */
  public double estimate() {
    return union().estimate();
  }

  @Override
  public PartialKind kind() {
    return PartialKind.COUNT_DISTINCT;
  }

  @Override
  public void merge(Partial other) {
    if (!(other instanceof CountDistinctPartial)
        || ((CountDistinctPartial) other).nominalEntries != nominalEntries
        || !((CountDistinctPartial) other).name.equals(name)) {
      throw new IllegalArgumentException(
          "cannot merge " + RawPartial.describe(other) + " into " + this);
    }
    CountDistinctPartial o = (CountDistinctPartial) other;
    if (!o.empty) {
      union().union(o.union);
      empty = false;
    }
  }

  @Override
  public void writeTo(PartialWriter out) {
    out.writeVarInt(nominalEntries);
    out.writeString(name);
    out.writeBytes(union().toByteArray());
  }

  static CountDistinctPartial readFrom(PartialReader in) {
    int nominal = in.readVarInt();
    String name = in.readString();
    byte[] image = in.readBytes();
    CountDistinctPartial p;
    try {
      p = new CountDistinctPartial(nominal, name);
    } catch (IllegalArgumentException e) {
      throw new PartialFormatException(e.getMessage());
    }
    SketchImages.unionThetaImage(p.union(), image);
    p.empty = p.union.isEmpty();
    return p;
  }

  @Override
  public List<Map<String, Object>> rows() {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put(name, Math.round(estimate()));
    List<Map<String, Object>> rows = new ArrayList<>(1);
    rows.add(row);
    return rows;
  }

  @Override
  public Map<String, Object> metadata() {
    Sketches.DistinctSummary result = union().summary();
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(MetadataKeys.WAS_ESTIMATED, result.estimationMode());
    meta.put(MetadataKeys.FAMILY, MetadataKeys.FAMILY_THETA);
    meta.put(MetadataKeys.SIZE, result.currentBytes());
    meta.put(MetadataKeys.THETA, result.theta());
    meta.put(
        MetadataKeys.STANDARD_DEVIATIONS,
        MetadataKeys.standardDeviations(
            sd -> result.upper()[sd - 1], sd -> result.lower()[sd - 1]));
    return meta;
  }

  @Override
  public boolean isEmpty() {
    return empty;
  }

  @Override
  public void reset() {
    if (union != null) {
      union.reset();
    }
    empty = true;
  }

  @Override
  public CountDistinctPartial emptyCopy() {
    return new CountDistinctPartial(nominalEntries, name);
  }

  @Override
  public String toString() {
    return "CountDistinctPartial(nominalEntries=" + nominalEntries + ", name=" + name + ")";
  }
}
