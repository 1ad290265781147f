package io.spyglass.core.partial;

import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.apache.datasketches.common.ResizeFactor;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.quantilescommon.QuantileSearchCriteria;
import org.apache.datasketches.thetacommon.BinomialBoundsN;

/**
 * The DataSketches sketches the partials use, in one place, written once for both lines of the
 * library (6 runs on Java 17 and 21; 9, with the same serialized formats, on Java 25 and later).
 * The lines' classes differ in name and in their memory type: {@link SketchLine}, the one class
 * written twice (for DataSketches 6 here, for DataSketches 9 in {@code src/main/java25}, which a
 * multi-release jar loads on Java 25 and later with DataSketches 9 itself under {@code
 * META-INF/versions/25}), makes those calls; the classes here extend it. This class names only
 * library classes both lines have alike.
 */
final class Sketches {
  private Sketches() {}

  /** The library line this runs on, for tests and diagnostics. */
  static String line() {
    return SketchLine.name();
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

  /**
   * A theta union used as a mutable distinct-count state. Not thread-safe. {@code update} adds a
   * hash or a string; {@code union} adds what another holds (which is not changed); {@code
   * unionImage} adds a compact theta image, whose header {@link SketchImages} checked; {@code
   * toByteArray} is the compact, ordered image; {@code isEstimated} whether {@code estimate} is an
   * estimate (the union dropped values to stay in bounds).
   */
  static final class Distinct extends SketchLine.Theta {
    /** A union that grows by doubling from the smallest table, so tiny sets stay tiny. */
    Distinct(int nominalEntries) {
      super(nominalEntries, ResizeFactor.X2);
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
      double[] lower) {

    static DistinctSummary of(
        boolean estimationMode,
        int currentBytes,
        double theta,
        double estimate,
        IntToDoubleFunction upperAtSd,
        IntToDoubleFunction lowerAtSd) {
      double[] upper = new double[3];
      double[] lower = new double[3];
      for (int sd = 1; sd <= 3; sd++) {
        upper[sd - 1] = upperAtSd.applyAsDouble(sd);
        lower[sd - 1] = lowerAtSd.applyAsDouble(sd);
      }
      return new DistinctSummary(estimationMode, currentBytes, theta, estimate, upper, lower);
    }
  }

  /**
   * A classic quantiles sketch of doubles, read with exclusive search criteria. Not thread-safe.
   * {@code toByteArray} is the compact image.
   */
  static final class Quantiles extends SketchLine.Doubles {
    private static final QuantileSearchCriteria CRITERIA = QuantileSearchCriteria.EXCLUSIVE;

    Quantiles(int k) {
      super(k);
    }

    private Quantiles(int k, byte[] image) {
      super(k, image);
    }

    /** The rank error of a sketch of {@code k} once it estimates, for one quantile. */
    static double normalizedRankError(int k) {
      return SketchLine.Doubles.normalizedRankError(k);
    }

    /** A sketch from a compact image, whose {@code k} {@link SketchImages} checked. */
    static Quantiles fromImage(int k, byte[] image) {
      return new Quantiles(k, image);
    }

    void update(double value) {
      sketch().update(value);
    }

    long n() {
      return sketch().getN();
    }

    boolean isEmpty() {
      return sketch().isEmpty();
    }

    boolean isEstimationMode() {
      return sketch().isEstimationMode();
    }

    double min() {
      return sketch().getMinItem();
    }

    double max() {
      return sketch().getMaxItem();
    }

    double[] quantiles(double[] ranks) {
      return sketch().getQuantiles(ranks, CRITERIA);
    }

    double[] pmf(double[] splitPoints) {
      return sketch().getPMF(splitPoints, CRITERIA);
    }

    double[] cdf(double[] splitPoints) {
      return sketch().getCDF(splitPoints, CRITERIA);
    }

    double normalizedRankError() {
      return sketch().getNormalizedRankError(false);
    }

    void reset() {
      sketch().reset();
    }
  }

  /**
   * A frequent-items sketch of group keys, read with no false negatives. Not thread-safe. {@code
   * merge} folds another in (which is not changed).
   */
  static final class Frequent extends SketchLine.Items {
    private final KeySerDe serDe;

    Frequent(int maxMapSize, int arity) {
      super(maxMapSize);
      this.serDe = new KeySerDe(arity);
    }

    private Frequent(byte[] image, KeySerDe serDe) {
      super(image, serDe);
      this.serDe = serDe;
    }

    /** A sketch from an image, whose header {@link SketchImages} checked. */
    static Frequent fromImage(byte[] image, int arity) {
      return new Frequent(image, new KeySerDe(arity));
    }

    /** The rows whose upper bound reaches {@code threshold} (and the sketch's own error). */
    List<FrequentRow> rows(long threshold) {
      return rows(threshold, ErrorType.NO_FALSE_NEGATIVES);
    }

    byte[] toByteArray() {
      return toByteArray(serDe);
    }
  }

  record FrequentRow(GroupKey item, long estimate, long upperBound) {}

  /**
   * The bytes from {@code offsetBytes} to the end of an image of {@code capacity} bytes, as an
   * array length.
   */
  static int itemBytes(long capacity, long offsetBytes) {
    long available = capacity - offsetBytes;
    if (offsetBytes < 0 || available < 0 || available > Integer.MAX_VALUE) {
      throw new PartialFormatException("bad item offset " + offsetBytes);
    }
    return (int) available;
  }

  /** Group keys in frequent-items images: the bytes of {@link GroupKeyCodec}. */
  private static final class KeySerDe extends SketchLine.ItemSerDe {
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
    GroupKey[] decodeItems(byte[] bytes, int numItems) {
      return codec.decode(bytes, numItems);
    }

    @Override
    public int sizeOf(GroupKey item) {
      return GroupKeyCodec.encode(item).length;
    }

    @Override
    int sizeOfItems(byte[] bytes, int numItems) {
      return codec.sizeOf(bytes, numItems);
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
