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
import org.apache.datasketches.quantilescommon.QuantilesDoublesAPI;
import org.apache.datasketches.theta.CompactThetaSketch;
import org.apache.datasketches.theta.ThetaSetOperation;
import org.apache.datasketches.theta.ThetaUnion;

/**
 * The DataSketches calls whose names differ between the library's lines, for DataSketches 9 (Java
 * 25 and later, loaded from {@code META-INF/versions/25} of the multi-release jar): its class names
 * and {@link MemorySegment}. The same members as {@code src/main/java}'s {@code SketchLine},
 * written for DataSketches 6 and documented there: keep the two alike, member for member.
 */
final class SketchLine {
  private SketchLine() {}

  /** The line, for tests and diagnostics (a method: a constant would be compiled into callers). */
  static String name() {
    return "DataSketches 9";
  }

  /** A theta union: {@link Sketches.Distinct}. */
  static class Theta {
    private final ThetaUnion union;

    Theta(int nominalEntries, ResizeFactor resize) {
      union =
          ThetaSetOperation.builder()
              .setNominalEntries(nominalEntries)
              .setResizeFactor(resize)
              .buildUnion();
    }

    final void update(long hash) {
      union.update(hash);
    }

    final void update(String value) {
      union.update(value);
    }

    /** Adds an unordered result of {@code other}: a plain copy, no sort on the merge path. */
    final void union(Theta other) {
      union.union(other.union.getResult(false, null));
    }

    final void unionImage(byte[] image) {
      union.union(MemorySegment.ofArray(image));
    }

    final byte[] toByteArray() {
      return union.getResult().toByteArray();
    }

    final double estimate() {
      return union.getResult(false, null).getEstimate();
    }

    final boolean isEstimated() {
      return union.getResult(false, null).isEstimationMode();
    }

    final boolean isEmpty() {
      return union.getResult(false, null).isEmpty();
    }

    final Sketches.DistinctSummary summary() {
      CompactThetaSketch r = union.getResult();
      return Sketches.DistinctSummary.of(
          r.isEstimationMode(),
          r.getCurrentBytes(),
          r.getTheta(),
          r.getEstimate(),
          r::getUpperBound,
          r::getLowerBound);
    }

    final void reset() {
      union.reset();
    }
  }

  /** A classic quantiles sketch of doubles: {@link Sketches.Quantiles}. */
  static class Doubles {
    private UpdatableQuantilesDoublesSketch sketch;

    Doubles(int k) {
      sketch = QuantilesDoublesSketch.builder().setK(k).build();
    }

    Doubles(int k, byte[] image) {
      QuantilesDoublesUnion union = QuantilesDoublesUnion.builder().setMaxK(k).build();
      union.union(MemorySegment.ofArray(image));
      sketch = union.getResult();
    }

    static double normalizedRankError(int k) {
      return QuantilesDoublesSketch.getNormalizedRankError(k, false);
    }

    /** The sketch, for the calls both lines name alike. */
    final QuantilesDoublesAPI sketch() {
      return sketch;
    }

    final void merge(int k, Doubles other) {
      QuantilesDoublesUnion union = QuantilesDoublesUnion.builder().setMaxK(k).build();
      union.union(sketch);
      union.union(other.sketch);
      sketch = union.getResult();
    }

    final int compactBytes() {
      return sketch.getCurrentCompactSerializedSizeBytes();
    }

    final byte[] toByteArray() {
      return sketch.toByteArray(true);
    }
  }

  /** A frequent-items sketch of group keys: {@link Sketches.Frequent}. */
  static class Items {
    private final FrequentItemsSketch<GroupKey> sketch;

    Items(int maxMapSize) {
      sketch = new FrequentItemsSketch<>(maxMapSize);
    }

    Items(byte[] image, ItemSerDe serDe) {
      sketch = FrequentItemsSketch.getInstance(MemorySegment.ofArray(image), serDe);
    }

    final void update(GroupKey key) {
      sketch.update(key);
    }

    final void merge(Items other) {
      sketch.merge(other.sketch);
    }

    final boolean isEmpty() {
      return sketch.isEmpty();
    }

    final long maximumError() {
      return sketch.getMaximumError();
    }

    final long streamLength() {
      return sketch.getStreamLength();
    }

    final int activeItems() {
      return sketch.getNumActiveItems();
    }

    final List<Sketches.FrequentRow> rows(long threshold, ErrorType errorType) {
      FrequentItemsSketch.Row<GroupKey>[] items = sketch.getFrequentItems(threshold, errorType);
      List<Sketches.FrequentRow> out = new ArrayList<>(items.length);
      for (FrequentItemsSketch.Row<GroupKey> r : items) {
        out.add(new Sketches.FrequentRow(r.getItem(), r.getEstimate(), r.getUpperBound()));
      }
      return out;
    }

    final byte[] toByteArray(ItemSerDe serDe) {
      return sketch.toByteArray(serDe);
    }

    final void reset() {
      sketch.reset();
    }
  }

  /** Group keys in frequent-items images, read from this line's memory type as bytes. */
  abstract static class ItemSerDe extends ArrayOfItemsSerDe<GroupKey> {
    abstract GroupKey[] decodeItems(byte[] bytes, int numItems);

    abstract int sizeOfItems(byte[] bytes, int numItems);

    @Override
    public final GroupKey[] deserializeFromMemorySegment(
        MemorySegment seg, long offsetBytes, int numItems) {
      return decodeItems(bytes(seg, offsetBytes), numItems);
    }

    @Override
    public final int sizeOf(MemorySegment seg, long offsetBytes, int numItems) {
      return sizeOfItems(bytes(seg, offsetBytes), numItems);
    }

    private static byte[] bytes(MemorySegment seg, long offsetBytes) {
      long length = Sketches.itemBytes(seg.byteSize(), offsetBytes);
      return seg.asSlice(offsetBytes, length).toArray(ValueLayout.JAVA_BYTE);
    }
  }
}
