package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad bytes fail with a {@link PartialFormatException}: never an NPE, an OOM or a hang. */
class BadBytesTest {
  static java.util.stream.Stream<Partial> samples() {
    return GoldenFilesTest.states()
        .map(a -> ((java.util.function.Supplier<?>) a.get()[1]).get())
        .map(Partial.class::cast);
  }

  @Test
  void wrongMagicVersionAndKind() {
    byte[] good = Partials.encode(GoldenFilesTest.raw());
    byte[] magic = good.clone();
    magic[0] = 'X';
    assertThatThrownBy(() -> Partials.decode(magic))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("magic");
    byte[] version = good.clone();
    version[4] = (byte) (Partials.JSON_FORMAT_VERSION + 1);
    assertThatThrownBy(() -> Partials.decode(version))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("version " + (Partials.JSON_FORMAT_VERSION + 1));
    byte[] kind = good.clone();
    kind[5] = 99;
    assertThatThrownBy(() -> Partials.decode(kind))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("kind");
    assertThatThrownBy(() -> Partials.decode(new byte[0]))
        .isInstanceOf(PartialFormatException.class);
    assertThatThrownBy(() -> Partials.decode(null)).isInstanceOf(PartialFormatException.class);
    byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> Partials.decode(trailing))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("trailing");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyTruncationFailsCleanly(Partial p) {
    byte[] good = Partials.encode(p);
    for (int n = 0; n < good.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(good, n);
      assertThat(catchThrowable(() -> Partials.decode(cut)))
          .as("decoding the first %d of %d bytes of %s", n, good.length, p)
          .isInstanceOf(PartialFormatException.class);
    }
  }

  @ParameterizedTest
  @MethodSource("samples")
  void corruptedBytesNeverEscapeAsOtherErrors(Partial p) {
    byte[] good = Partials.encode(p);
    Random random = new Random(good.length);
    for (int trial = 0; trial < 2000; trial++) {
      byte[] bad = good.clone();
      int flips = 1 + random.nextInt(3);
      for (int f = 0; f < flips; f++) {
        int at = 6 + random.nextInt(bad.length - 6);
        bad[at] = (byte) (random.nextBoolean() ? random.nextInt(256) : 0xFF);
      }
      Throwable t = catchThrowable(() -> Partials.decode(bad));
      if (t != null) {
        assertThat(t).as("trial %d on %s", trial, p).isInstanceOf(PartialFormatException.class);
      }
    }
  }

  @Test
  void hugeDeclaredLengthsFailBeforeAllocating() {
    PartialWriter raw = new PartialWriter();
    raw.writeRaw(Partials.MAGIC, 0, 4);
    raw.writeByte(1).writeByte(PartialKind.RAW.tag());
    raw.writeVarInt(Integer.MAX_VALUE).writeVarInt(Integer.MAX_VALUE);
    assertThatThrownBy(() -> Partials.decode(raw.toByteArray()))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("does not fit");

    PartialWriter group = new PartialWriter();
    group.writeRaw(Partials.MAGIC, 0, 4);
    group.writeByte(1).writeByte(PartialKind.GROUP.tag());
    group.writeVarInt(0).writeVarInt(0).writeVarInt(Integer.MAX_VALUE).writeVarInt(16);
    group.writeLong(Long.MAX_VALUE).writeVarInt(Integer.MAX_VALUE);
    assertThatThrownBy(() -> Partials.decode(group.toByteArray()))
        .isInstanceOf(PartialFormatException.class);

    // A theta image that claims two billion entries.
    byte[] theta = new byte[24];
    theta[0] = 3;
    theta[8] = (byte) 0xFF;
    theta[9] = (byte) 0xFF;
    theta[10] = (byte) 0xFF;
    theta[11] = (byte) 0x7F;
    PartialWriter cd = new PartialWriter();
    cd.writeRaw(Partials.MAGIC, 0, 4);
    cd.writeByte(1).writeByte(PartialKind.COUNT_DISTINCT.tag());
    cd.writeVarInt(32).writeString("x").writeBytes(theta);
    assertThatThrownBy(() -> Partials.decode(cd.toByteArray()))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("entries");
  }
}
