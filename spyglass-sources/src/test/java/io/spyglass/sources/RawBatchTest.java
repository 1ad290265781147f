package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawBatchTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Each record as a string, read from its own array (what the workers do: no copy). */
  private static List<String> byArray(RawBatch b) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < b.size(); i++) {
      out.add(new String(b.array(i), b.start(i), b.length(i), StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Each record as a string, read from the shared buffer. */
  private static List<String> byData(RawBatch b) {
    List<String> out = new ArrayList<>();
    byte[] data = b.data();
    for (int i = 0; i < b.size(); i++) {
      out.add(new String(data, b.start(i), b.length(i), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void referencedRecordsAreReadWhereTheyAreWithTheirPositions() {
    byte[] fetched = utf8("xx{\"a\":1}yy{\"b\":2}zz");
    RawBatch b = new RawBatch(16, 4);
    b.addReferenced(fetched, 2, 7, 3, 100, 1_000);
    b.addReferenced(fetched, 11, 7, 4, 200, 2_000);
    assertThat(b.size()).isEqualTo(2);
    assertThat(b.bytes()).isEqualTo(14);
    assertThat(b.positioned()).isTrue();
    assertThat(b.array(0)).isSameAs(fetched);
    assertThat(b.array(1)).isSameAs(fetched);
    assertThat(byArray(b)).containsExactly("{\"a\":1}", "{\"b\":2}");
    assertThat(b.partition(1)).isEqualTo(4);
    assertThat(b.offset(1)).isEqualTo(200);
    assertThat(b.timestamp(1)).isEqualTo(2_000);
    assertThat(b.where(0)).isEqualTo("partition 3 offset 100");
  }

  @Test
  void theSharedBufferHoldsEveryRecordInOrderOneAfterTheOther() {
    // what readers of data() alone expect (e.g. a copy of data()[0 .. bytes()))
    byte[] fetched = utf8("..{\"r\":2}..{\"r\":4}..");
    RawBatch b = new RawBatch(16, 2);
    b.add(utf8("{\"r\":1}"), 0, 7);
    b.addReferenced(fetched, 2, 7, 0, 1, 1);
    b.add(ByteBuffer.wrap(utf8("{\"r\":3}")), 0, 2, 2);
    b.addReferenced(fetched, 11, 7, 0, 3, 3);
    b.add(utf8("{\"r\":5}"), 0, 7);
    List<String> expected =
        List.of("{\"r\":1}", "{\"r\":2}", "{\"r\":3}", "{\"r\":4}", "{\"r\":5}");
    assertThat(byArray(b)).isEqualTo(expected);
    assertThat(byData(b)).isEqualTo(expected);
    assertThat(b.bytes()).isEqualTo(35);
    int end = 0;
    for (int i = 0; i < b.size(); i++) {
      assertThat(b.start(i)).isEqualTo(end);
      end += b.length(i);
      assertThat(b.array(i)).isSameAs(b.data());
    }
    assertThat(new String(b.data(), 0, b.bytes(), StandardCharsets.UTF_8))
        .isEqualTo(String.join("", expected));
  }

  @Test
  void aBatchOfReferencedRecordsOnlyIsGatheredIntoItsOwnBuffer() {
    byte[] fetched = utf8("{\"a\":1}{\"b\":2}");
    RawBatch b = new RawBatch(64, 4);
    b.addReferenced(fetched, 0, 7, 0, 0, 0);
    b.addReferenced(fetched, 7, 7, 0, 1, 0);
    assertThat(byData(b)).containsExactly("{\"a\":1}", "{\"b\":2}");
    // the fetched bytes may change once the batch is cleared; the gathered ones do not
    fetched[2] = 'z';
    assertThat(byData(b)).containsExactly("{\"a\":1}", "{\"b\":2}");
  }

  @Test
  void clearingLetsGoOfReferencedArrays() {
    byte[] fetched = utf8("{\"a\":1}");
    RawBatch b = new RawBatch(16, 4);
    b.addReferenced(fetched, 0, 7, 0, 0, 0);
    b.clear();
    assertThat(b.size()).isZero();
    assertThat(b.bytes()).isZero();
    assertThat(b.positioned()).isFalse();
    b.add(utf8("{\"c\":3}"), 0, 7);
    assertThat(b.array(0)).isNotSameAs(fetched);
    assertThat(byArray(b)).containsExactly("{\"c\":3}");
  }

  @Test
  void aBufferWithoutAnArrayIsCopiedAndItsPositionStays() {
    ByteBuffer direct = ByteBuffer.allocateDirect(16);
    direct.put(utf8("..{\"d\":4}"));
    direct.flip().position(2);
    RawBatch b = new RawBatch(4, 1);
    b.add(direct, 1, 9, 99);
    assertThat(direct.position()).isEqualTo(2);
    assertThat(byArray(b)).containsExactly("{\"d\":4}");
    assertThat(b.offset(0)).isEqualTo(9);
    ByteBuffer readOnly = ByteBuffer.wrap(utf8("{\"e\":5}")).asReadOnlyBuffer();
    b.add(readOnly, 1, 10, 100);
    assertThat(byArray(b)).containsExactly("{\"d\":4}", "{\"e\":5}");
  }

  @Test
  void growsPastItsFirstSize() {
    RawBatch b = new RawBatch(16, 4);
    byte[] fetched = utf8("{\"n\":0}");
    for (int i = 0; i < 100; i++) {
      if (i % 2 == 0) {
        b.addReferenced(fetched, 0, 7, 0, i, 0);
      } else {
        b.add(fetched, 0, 7);
      }
    }
    assertThat(b.size()).isEqualTo(100);
    assertThat(byArray(b)).allMatch("{\"n\":0}"::equals);
    assertThat(byData(b)).hasSize(100).allMatch("{\"n\":0}"::equals);
  }
}
