package io.spyglass.core.partial;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.Points;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code QUANTILE}, {@code FREQ} (PMF) and {@code CUMFREQ} (CDF) of a numeric expression: a classic
 * quantiles sketch ({@code k} from {@code QueryLimits.distributionEntries}), exact while fewer than
 * {@code 2k} values have been seen, then with normalized rank error {@code
 * DoublesSketch.getNormalizedRankError(k, false)}.
 *
 * <p>Rows follow Bullet: QUANTILE gives {@code {"Quantile": fraction, "Value": v}}; PMF gives
 * {@code {"Range": "(-∞ to p1)" | "[p1 to p2)" | "[pn to +∞)", "Count": c, "Probability": p}}; CDF
 * gives the cumulative ranges {@code "(-∞ to p)"} and finally {@code "(-∞ to +∞)"}. Ranges include
 * their start and exclude their end. {@code Count} is the probability times the number of values
 * seen (a DOUBLE as in Bullet, whole while the sketch is exact). Generated points (LINEAR, REGION)
 * are rounded to {@value #ROUNDING} decimal places; LINEAR spans 0..1 for QUANTILE and the sketch's
 * minimum..maximum for PMF and CDF.
 *
 * <p>An empty sketch answers as Bullet does: minimum +∞, maximum −∞, quantile 0 is +∞, quantile 1
 * is −∞, everything else NaN; LINEAR PMF/CDF then have the single point +∞.
 */
public final class DistributionPartial implements Partial {
  /** Decimal places of generated points (Bullet's default). */
  public static final int ROUNDING = 6;

  public static final String QUANTILE = "Quantile";
  public static final String VALUE = "Value";
  public static final String RANGE = "Range";
  public static final String COUNT = "Count";
  public static final String PROBABILITY = "Probability";

  private static final String NEG_INF = "-\u221e";
  private static final String POS_INF = "+\u221e";

  private final DistributionKind kind;
  private final Points points;
  private final int k;
  private final int maxPoints;

  /** Null until first needed: thousands of idle queries hold no sketch. */
  private Sketches.Quantiles sketch;

  /**
   * @param kind QUANTILE, PMF or CDF
   * @param points where the distribution is read; QUANTILE points must lie in [0, 1]
   * @param k quantiles sketch k, a power of 2 from 2 to 32768
   * @param maxPoints most points read (REGION and MANUAL are cut to it)
   */
  public DistributionPartial(DistributionKind kind, Points points, int k, int maxPoints) {
    if (!SketchImages.isPowerOfTwo(k) || k < 2 || k > 32768) {
      throw new IllegalArgumentException("k must be a power of 2 from 2 to 32768: " + k);
    }
    if (maxPoints < 1) {
      throw new IllegalArgumentException("maxPoints must be at least 1: " + maxPoints);
    }
    this.kind = kind;
    this.points = validate(kind, points);
    this.k = k;
    this.maxPoints = maxPoints;
  }

  private static Points validate(DistributionKind kind, Points points) {
    if (points instanceof Points.Linear) {
      if (((Points.Linear) points).count() < 1) {
        throw new IllegalArgumentException("LINEAR needs at least one point");
      }
    } else if (points instanceof Points.Region) {
      Points.Region r = (Points.Region) points;
      if (!(r.start() <= r.end()) || !(r.step() > 0) || Double.isInfinite(r.end() - r.start())) {
        throw new IllegalArgumentException("REGION needs start <= end and step > 0: " + r);
      }
      if (kind == DistributionKind.QUANTILE && (r.start() < 0 || r.end() > 1)) {
        throw new IllegalArgumentException("QUANTILE points must lie in [0, 1]: " + r);
      }
    } else {
      List<Double> ps = ((Points.Manual) points).points();
      if (ps.isEmpty()) {
        throw new IllegalArgumentException("MANUAL needs at least one point");
      }
      for (Double p : ps) {
        if (p == null || p.isNaN()) {
          throw new IllegalArgumentException("MANUAL points must be numbers: " + ps);
        }
        if (kind == DistributionKind.QUANTILE && (p < 0 || p > 1)) {
          throw new IllegalArgumentException("QUANTILE points must lie in [0, 1]: " + ps);
        }
      }
    }
    return points;
  }

  public DistributionKind distributionKind() {
    return kind;
  }

  public Points points() {
    return points;
  }

  public int k() {
    return k;
  }

  public int maxPoints() {
    return maxPoints;
  }

  /** Adds a value; NaN is skipped. */
  public void update(double value) {
    if (!Double.isNaN(value)) {
      sketch().update(value);
    }
  }

  private Sketches.Quantiles sketch() {
    if (sketch == null) {
      sketch = new Sketches.Quantiles(k);
    }
    return sketch;
  }

  /** Values seen. */
  public long count() {
    return sketch == null ? 0 : sketch.n();
  }

  @Override
  public PartialKind kind() {
    return PartialKind.DISTRIBUTION;
  }

  @Override
  public void merge(Partial other) {
    if (!(other instanceof DistributionPartial) || !sameParameters((DistributionPartial) other)) {
      throw new IllegalArgumentException(
          "cannot merge " + RawPartial.describe(other) + " into " + this);
    }
    DistributionPartial o = (DistributionPartial) other;
    if (o.isEmpty()) {
      return;
    }
    sketch().merge(k, o.sketch);
  }

  private boolean sameParameters(DistributionPartial o) {
    return kind == o.kind && points.equals(o.points) && k == o.k && maxPoints == o.maxPoints;
  }

  @Override
  public void writeTo(PartialWriter out) {
    out.writeByte(kind.ordinal());
    if (points instanceof Points.Linear) {
      out.writeByte(1).writeVarInt(((Points.Linear) points).count());
    } else if (points instanceof Points.Region) {
      Points.Region r = (Points.Region) points;
      out.writeByte(2).writeDouble(r.start()).writeDouble(r.end()).writeDouble(r.step());
    } else {
      List<Double> ps = ((Points.Manual) points).points();
      out.writeByte(3).writeVarInt(ps.size());
      for (double p : ps) {
        out.writeDouble(p);
      }
    }
    out.writeVarInt(k);
    out.writeVarInt(maxPoints);
    out.writeBytes(sketch().toByteArray());
  }

  static DistributionPartial readFrom(PartialReader in) {
    int kindOrdinal = in.readByte();
    if (kindOrdinal >= DistributionKind.values().length) {
      throw new PartialFormatException("unknown distribution kind " + kindOrdinal);
    }
    DistributionKind kind = DistributionKind.values()[kindOrdinal];
    int pointsTag = in.readByte();
    Points points;
    switch (pointsTag) {
      case 1:
        points = new Points.Linear(in.readVarInt());
        break;
      case 2:
        points = new Points.Region(in.readDouble(), in.readDouble(), in.readDouble());
        break;
      case 3:
        {
          int n = in.readCount(8);
          List<Double> ps = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            ps.add(in.readDouble());
          }
          points = new Points.Manual(ps);
          break;
        }
      default:
        throw new PartialFormatException("unknown distribution points tag " + pointsTag);
    }
    int k = in.readVarInt();
    int maxPoints = in.readVarInt();
    byte[] image = in.readBytes();
    DistributionPartial p;
    try {
      p = new DistributionPartial(kind, points, k, maxPoints);
    } catch (IllegalArgumentException e) {
      throw new PartialFormatException(e.getMessage());
    }
    SketchImages.checkQuantilesImage(image, k);
    p.sketch = Sketches.Quantiles.fromImage(k, image);
    return p;
  }

  @Override
  public List<Map<String, Object>> rows() {
    sketch();
    boolean empty = sketch.isEmpty();
    double min = empty ? Double.POSITIVE_INFINITY : sketch.min();
    double max = empty ? Double.NEGATIVE_INFINITY : sketch.max();
    double[] domain = domain(min, max);
    List<Map<String, Object>> rows = new ArrayList<>(domain.length + 1);
    if (kind == DistributionKind.QUANTILE) {
      double[] values = empty ? emptyQuantiles(domain) : sketch.quantiles(domain);
      for (int i = 0; i < domain.length; i++) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put(QUANTILE, domain[i]);
        row.put(VALUE, values[i]);
        rows.add(row);
      }
      return rows;
    }
    double[] probabilities;
    if (empty) {
      probabilities = new double[domain.length + 1];
      java.util.Arrays.fill(probabilities, Double.NaN);
    } else {
      probabilities = kind == DistributionKind.PMF ? sketch.pmf(domain) : sketch.cdf(domain);
    }
    long n = sketch.n();
    String[] ranges = kind == DistributionKind.PMF ? pmfRanges(domain) : cdfRanges(domain);
    boolean exact = !sketch.isEstimationMode();
    for (int i = 0; i < ranges.length; i++) {
      double count = probabilities[i] * n;
      double probability = probabilities[i];
      if (exact && !empty) {
        // Exact counts are whole: drop the rounding noise of the sketch's rank arithmetic.
        count = Math.rint(count);
        probability = count / n;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put(RANGE, ranges[i]);
      row.put(COUNT, count);
      row.put(PROBABILITY, probability);
      rows.add(row);
    }
    return rows;
  }

  private static double[] emptyQuantiles(double[] fractions) {
    double[] values = new double[fractions.length];
    for (int i = 0; i < fractions.length; i++) {
      values[i] =
          fractions[i] == 0.0
              ? Double.POSITIVE_INFINITY
              : fractions[i] == 1.0 ? Double.NEGATIVE_INFINITY : Double.NaN;
    }
    return values;
  }

  /**
   * The points read: strictly increasing (duplicates after rounding dropped), at most maxPoints.
   */
  double[] domain(double min, double max) {
    double[] raw;
    if (points instanceof Points.Linear) {
      int n = Math.min(((Points.Linear) points).count(), maxPoints);
      raw = kind == DistributionKind.QUANTILE ? linear(0.0, 1.0, n) : linear(min, max, n);
    } else if (points instanceof Points.Region) {
      Points.Region r = (Points.Region) points;
      long n = (long) Math.floor((r.end() - r.start()) / r.step() + 1e-9) + 1;
      int count = (int) Math.max(1, Math.min(n, maxPoints));
      raw = new double[count];
      for (int i = 0; i < count; i++) {
        raw[i] = round(Math.min(r.start() + i * r.step(), r.end()));
      }
    } else {
      List<Double> ps = ((Points.Manual) points).points();
      int count = Math.min(ps.size(), maxPoints);
      raw = new double[count];
      for (int i = 0; i < count; i++) {
        raw[i] = ps.get(i);
      }
      java.util.Arrays.sort(raw);
    }
    return distinct(raw);
  }

  private static double[] linear(double start, double end, int n) {
    if (n <= 1 || !(start < end)) {
      return new double[] {round(start)};
    }
    double[] out = new double[n];
    double increment = (end - start) / (n - 1);
    for (int i = 0; i < n - 1; i++) {
      out[i] = round(start + i * increment);
    }
    out[n - 1] = round(end);
    return out;
  }

  private static double[] distinct(double[] sorted) {
    int w = 0;
    for (int i = 0; i < sorted.length; i++) {
      if (w == 0 || sorted[i] > sorted[w - 1]) {
        sorted[w++] = sorted[i];
      }
    }
    return w == sorted.length ? sorted : java.util.Arrays.copyOf(sorted, w);
  }

  static double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return v;
    }
    return BigDecimal.valueOf(v).setScale(ROUNDING, RoundingMode.HALF_UP).doubleValue();
  }

  private static String[] pmfRanges(double[] splits) {
    String[] bins = new String[splits.length + 1];
    String prefix = "(" + NEG_INF + " to ";
    for (int i = 0; i < splits.length; i++) {
      bins[i] = prefix + splits[i] + ")";
      prefix = "[" + splits[i] + " to ";
    }
    bins[splits.length] = "[" + splits[splits.length - 1] + " to " + POS_INF + ")";
    return bins;
  }

  private static String[] cdfRanges(double[] splits) {
    String[] bins = new String[splits.length + 1];
    for (int i = 0; i < splits.length; i++) {
      bins[i] = "(" + NEG_INF + " to " + splits[i] + ")";
    }
    bins[splits.length] = "(" + NEG_INF + " to " + POS_INF + ")";
    return bins;
  }

  @Override
  public Map<String, Object> metadata() {
    sketch();
    boolean empty = sketch.isEmpty();
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(MetadataKeys.WAS_ESTIMATED, sketch.isEstimationMode());
    meta.put(MetadataKeys.FAMILY, MetadataKeys.FAMILY_QUANTILES);
    meta.put(MetadataKeys.SIZE, sketch.compactBytes());
    meta.put(MetadataKeys.NORMALIZED_RANK_ERROR, sketch.normalizedRankError());
    meta.put(MetadataKeys.ITEMS_SEEN, sketch.n());
    meta.put(MetadataKeys.MINIMUM_VALUE, empty ? Double.POSITIVE_INFINITY : sketch.min());
    meta.put(MetadataKeys.MAXIMUM_VALUE, empty ? Double.NEGATIVE_INFINITY : sketch.max());
    return meta;
  }

  @Override
  public boolean isEmpty() {
    return sketch == null || sketch.isEmpty();
  }

  @Override
  public void reset() {
    if (sketch != null) {
      sketch.reset();
    }
  }

  @Override
  public DistributionPartial emptyCopy() {
    return new DistributionPartial(kind, points, k, maxPoints);
  }

  @Override
  public String toString() {
    return "DistributionPartial(" + kind + ", " + points + ", k=" + k + ", n=" + count() + ")";
  }
}
