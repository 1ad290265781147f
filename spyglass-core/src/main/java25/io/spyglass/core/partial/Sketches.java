package io.spyglass.core.partial;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.datasketches.common.ArrayOfItemsSerDe;
import org.apache.datasketches.common.ResizeFactor;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.FrequentItemsSketch;
import org.apache.datasketches.quantiles.QuantilesDoublesSketch;
import org.apache.datasketches.quantiles.QuantilesDoublesUnion;
import org.apache.datasketches.quantiles.UpdatableQuantilesDoublesSketch;
import org.apache.datasketches.quantilescommon.QuantileSearchCriteria;
import org.apache.datasketches.theta.CompactThetaSketch;
import org.apache.datasketches.theta.ThetaSetOperation;
import org.apache.datasketches.theta.ThetaUnion;
import org.apache.datasketches.thetacommon.BinomialBoundsN;

/**
 * The DataSketches operations the partials use, in one place: the only code that names the
 * library's sketch classes. DataSketches has one line per JDK (6 runs on Java 17 and 21; 9, with
 * the same serialized formats, on Java 25 and later), whose classes differ in name and API. This
 * class is written for DataSketches 6; {@code src/main/java25} holds the same class written for
 * DataSketches 9, which a multi-release jar loads on Java 25 and later (with DataSketches 9 itself
 * under {@code META-INF/versions/25}). Both must offer the same package-private API.
 */
final class Sketches {
  private Sketches() {}

  /** The library line this class is written for, for tests and diagnostics. */
  static String line() {
    return "DataSketches 9";
  }

  /**
   * The upper bound of the number of distinct items behind {@code retained} items sampled at {@code
   * theta}, at {@code sd} standard deviations.
   */
  static double upperBound(long retained, double theta, int sd, boolean noData) {
    return BinomialBoundsN.getUpperBound(retained, theta, sd, noData);
  }

  /** The lower bound, as {@link #upperBound}. */
  static double lowerBound(long retained, double theta, int sd, boolean noData) {
    return BinomialBoundsN.getLowerBound(retained, theta, sd, noData);
  }

  /** A theta union used as a mutable distinct-count state. Not thread-safe. */
  static final class Distinct {
    private final ThetaUnion union;

    /** A union that grows by doubling from the smallest table, so tiny sets stay tiny. */
    Distinct(int nominalEntries) {
      this.union =
          ThetaSetOperation.builder()
              .setNominalEntries(nominalEntries)
              .setResizeFactor(ResizeFactor.X2)
              .buildUnion();
    }

    void update(long hash) {
      union.update(hash);
    }

    void update(String value) {
      union.update(value);
    }

    /** Adds what {@code other} holds; {@code other} is not changed. */
    void union(Distinct other) {
      // an unordered result is a plain copy of the retained hashes: no sort on the merge path
      union.union(other.union.getResult(false, null));
    }

    /** Adds a compact theta image, whose header {@link SketchImages} checked. */
    void unionImage(byte[] image) {
      union.union(MemorySegment.ofArray(image));
    }

    /** The compact, ordered image. */
    byte[] toByteArray() {
      return union.getResult().toByteArray();
    }

    double estimate() {
      return union.getResult(false, null).getEstimate();
    }

    /** Whether {@link #estimate()} is an estimate: the union dropped values to stay in bounds. */
    boolean isEstimated() {
      return union.getResult(false, null).isEstimationMode();
    }

    boolean isEmpty() {
      return union.getResult(false, null).isEmpty();
    }

    DistinctSummary summary() {
      CompactThetaSketch r = union.getResult();
      double[] upper = new double[3];
      double[] lower = new double[3];
      for (int sd = 1; sd <= 3; sd++) {
        upper[sd - 1] = r.getUpperBound(sd);
        lower[sd - 1] = r.getLowerBound(sd);
      }
      return new DistinctSummary(
          r.isEstimationMode(), r.getCurrentBytes(), r.getTheta(), r.getEstimate(), upper, lower);
    }

    void reset() {
      union.reset();
    }
  }

  /**
   * What a distinct-count state says about itself.
   *
   * @param upper the upper bound at 1, 2 and 3 standard deviations
   * @param lower the lower bound at 1, 2 and 3 standard deviations
   */
  record DistinctSummary(
      boolean estimationMode,
      int currentBytes,
      double theta,
      double estimate,
      double[] upper,
      double[] lower) {}

  /**
   * A classic quantiles sketch of doubles, read with exclusive search criteria. Not thread-safe.
   */
  static final class Quantiles {
    private static final QuantileSearchCriteria CRITERIA = QuantileSearchCriteria.EXCLUSIVE;
    private UpdatableQuantilesDoublesSketch sketch;

    Quantiles(int k) {
      this(QuantilesDoublesSketch.builder().setK(k).build());
    }

    private Quantiles(UpdatableQuantilesDoublesSketch sketch) {
      this.sketch = sketch;
    }

    /** The rank error of a sketch of {@code k} once it estimates, for one quantile. */
    static double normalizedRankError(int k) {
      return QuantilesDoublesSketch.getNormalizedRankError(k, false);
    }

    /** A sketch from a compact image, whose {@code k} {@link SketchImages} checked. */
    static Quantiles fromImage(int k, byte[] image) {
      QuantilesDoublesUnion union = QuantilesDoublesUnion.builder().setMaxK(k).build();
      union.union(MemorySegment.ofArray(image));
      return new Quantiles(union.getResult());
    }

    /** Folds {@code other} in; {@code other} is not changed. */
    void merge(int k, Quantiles other) {
      QuantilesDoublesUnion union = QuantilesDoublesUnion.builder().setMaxK(k).build();
      union.union(sketch);
      union.union(other.sketch);
      sketch = union.getResult();
    }

    void update(double value) {
      sketch.update(value);
    }

    long n() {
      return sketch.getN();
    }

    boolean isEmpty() {
      return sketch.isEmpty();
    }

    boolean isEstimationMode() {
      return sketch.isEstimationMode();
    }

    double min() {
      return sketch.getMinItem();
    }

    double max() {
      return sketch.getMaxItem();
    }

    double[] quantiles(double[] ranks) {
      return sketch.getQuantiles(ranks, CRITERIA);
    }

    double[] pmf(double[] splitPoints) {
      return sketch.getPMF(splitPoints, CRITERIA);
    }

    double[] cdf(double[] splitPoints) {
      return sketch.getCDF(splitPoints, CRITERIA);
    }

    int compactBytes() {
      return sketch.getCurrentCompactSerializedSizeBytes();
    }

    double normalizedRankError() {
      return sketch.getNormalizedRankError(false);
    }

    /** The compact image. */
    byte[] toByteArray() {
      return sketch.toByteArray(true);
    }

    void reset() {
      sketch.reset();
    }
  }

  /** A frequent-items sketch of group keys, read with no false negatives. Not thread-safe. */
  static final class Frequent {
    private final FrequentItemsSketch<GroupKey> sketch;
    private final KeySerDe serDe;

    Frequent(int maxMapSize, int arity) {
      this(new FrequentItemsSketch<>(maxMapSize), new KeySerDe(arity));
    }

    private Frequent(FrequentItemsSketch<GroupKey> sketch, KeySerDe serDe) {
      this.sketch = sketch;
      this.serDe = serDe;
    }

    /** A sketch from an image, whose header {@link SketchImages} checked. */
    static Frequent fromImage(byte[] image, int arity) {
      KeySerDe serDe = new KeySerDe(arity);
      return new Frequent(FrequentItemsSketch.getInstance(MemorySegment.ofArray(image), serDe), serDe);
    }

    void update(GroupKey key) {
      sketch.update(key);
    }

    /** Folds {@code other} in; {@code other} is not changed. */
    void merge(Frequent other) {
      sketch.merge(other.sketch);
    }

    boolean isEmpty() {
      return sketch.isEmpty();
    }

    long maximumError() {
      return sketch.getMaximumError();
    }

    long streamLength() {
      return sketch.getStreamLength();
    }

    int activeItems() {
      return sketch.getNumActiveItems();
    }

    /** The rows whose upper bound reaches {@code threshold} (and the sketch's own error). */
    List<FrequentRow> rows(long threshold) {
      FrequentItemsSketch.Row<GroupKey>[] items =
          sketch.getFrequentItems(threshold, ErrorType.NO_FALSE_NEGATIVES);
      List<FrequentRow> out = new ArrayList<>(items.length);
      for (FrequentItemsSketch.Row<GroupKey> r : items) {
        out.add(new FrequentRow(r.getItem(), r.getEstimate(), r.getUpperBound()));
      }
      return out;
    }

    byte[] toByteArray() {
      return sketch.toByteArray(serDe);
    }

    void reset() {
      sketch.reset();
    }
  }

  record FrequentRow(GroupKey item, long estimate, long upperBound) {}

  /** Group keys in frequent-items images: the bytes of {@link GroupKeyCodec}. */
  private static final class KeySerDe extends ArrayOfItemsSerDe<GroupKey> {
    private final GroupKeyCodec codec;

    KeySerDe(int arity) {
      this.codec = new GroupKeyCodec(arity);
    }

    @Override
    public byte[] serializeToByteArray(GroupKey item) {
      return GroupKeyCodec.encode(item);
    }

    @Override
    public byte[] serializeToByteArray(GroupKey[] items) {
      return GroupKeyCodec.encode(items);
    }

    @Override
    public GroupKey[] deserializeFromMemorySegment(
        MemorySegment seg, long offsetBytes, int numItems) {
      return codec.decode(bytes(seg, offsetBytes), numItems);
    }

    @Override
    public int sizeOf(GroupKey item) {
      return GroupKeyCodec.encode(item).length;
    }

    @Override
    public int sizeOf(MemorySegment seg, long offsetBytes, int numItems) {
      return codec.sizeOf(bytes(seg, offsetBytes), numItems);
    }

    private static byte[] bytes(MemorySegment seg, long offsetBytes) {
      long available = seg.byteSize() - offsetBytes;
      if (offsetBytes < 0 || available < 0 || available > Integer.MAX_VALUE) {
        throw new PartialFormatException("bad item offset " + offsetBytes);
      }
      return seg.asSlice(offsetBytes, available).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public String toString(GroupKey item) {
      return String.valueOf(item);
    }

    @Override
    public Class<GroupKey> getClassOfT() {
      return GroupKey.class;
    }
  }
}
