package io.spyglass.core.partial;

import java.util.ArrayList;
import java.util.List;
import org.apache.datasketches.common.ArrayOfItemsSerDe;
import org.apache.datasketches.common.ResizeFactor;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.ItemsSketch;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.quantiles.DoublesSketch;
import org.apache.datasketches.quantiles.DoublesUnion;
import org.apache.datasketches.quantiles.UpdateDoublesSketch;
import org.apache.datasketches.quantilescommon.QuantilesDoublesAPI;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.SetOperation;
import org.apache.datasketches.theta.Union;

/**
 * The DataSketches calls whose names differ between the library's lines, for DataSketches 6 (Java
 * 17 to 24): its class names and its {@code Memory}. {@code src/main/java25} holds this class for
 * DataSketches 9 (Java 25 and later, loaded from {@code META-INF/versions/25} of the multi-release
 * jar), with the same members: keep the two alike, member for member. What the sketches mean, and
 * every choice about them, is in {@link Sketches}, written once; it extends these classes.
 */
final class SketchLine {
  private SketchLine() {}

  /** The line, for tests and diagnostics (a method: a constant would be compiled into callers). */
  static String name() {
    return "DataSketches 6";
  }

  /** A theta union: {@link Sketches.Distinct}. */
  static class Theta {
    private final Union union;

    Theta(int nominalEntries, ResizeFactor resize) {
      union =
          SetOperation.builder()
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
      union.union(Memory.wrap(image));
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
      CompactSketch r = union.getResult();
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
    private UpdateDoublesSketch sketch;

    Doubles(int k) {
      sketch = DoublesSketch.builder().setK(k).build();
    }

    Doubles(int k, byte[] image) {
      DoublesUnion union = DoublesUnion.builder().setMaxK(k).build();
      union.union(Memory.wrap(image));
      sketch = union.getResult();
    }

    static double normalizedRankError(int k) {
      return DoublesSketch.getNormalizedRankError(k, false);
    }

    /** The sketch, for the calls both lines name alike. */
    final QuantilesDoublesAPI sketch() {
      return sketch;
    }

    final void merge(int k, Doubles other) {
      DoublesUnion union = DoublesUnion.builder().setMaxK(k).build();
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
    private final ItemsSketch<GroupKey> sketch;

    Items(int maxMapSize) {
      sketch = new ItemsSketch<>(maxMapSize);
    }

    Items(byte[] image, ItemSerDe serDe) {
      sketch = ItemsSketch.getInstance(Memory.wrap(image), serDe);
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
      ItemsSketch.Row<GroupKey>[] items = sketch.getFrequentItems(threshold, errorType);
      List<Sketches.FrequentRow> out = new ArrayList<>(items.length);
      for (ItemsSketch.Row<GroupKey> r : items) {
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
    public final GroupKey[] deserializeFromMemory(Memory mem, long offsetBytes, int numItems) {
      return decodeItems(bytes(mem, offsetBytes), numItems);
    }

    @Override
    public final int sizeOf(Memory mem, long offsetBytes, int numItems) {
      return sizeOfItems(bytes(mem, offsetBytes), numItems);
    }

    private static byte[] bytes(Memory mem, long offsetBytes) {
      byte[] bytes = new byte[Sketches.itemBytes(mem.getCapacity(), offsetBytes)];
      mem.getByteArray(offsetBytes, bytes, 0, bytes.length);
      return bytes;
    }
  }
}
