package io.spyglass.core.partial;

/**
 * The binary form of partials.
 *
 * <pre>
 * magic   4 bytes  'S' 'G' 'P' 'S'
 * version 1 byte   1
 * kind    1 byte   {@link PartialKind#tag()}
 * params  kind-specific (limits, k, capacity, metric kinds and names, points...)
 * body    kind-specific; sketches as DataSketches' own serialized images (varint length + bytes)
 * </pre>
 *
 * Numbers are little-endian or varints (see {@link PartialWriter}); values use {@link ValueCodec}.
 * Decoding rejects anything malformed with a {@link PartialFormatException} and never allocates
 * more than the input's size justifies.
 */
public final class Partials {
  static final byte[] MAGIC = {'S', 'G', 'P', 'S'};
  public static final int FORMAT_VERSION = 1;

  private Partials() {}

  /**
   * The DataSketches line behind the sketches on this JVM: {@code DataSketches 6} (Java 17 and 21)
   * or {@code DataSketches 9} (Java 25 and later, from the multi-release jar).
   */
  public static String sketchLibrary() {
    return Sketches.line();
  }

  public static byte[] encode(Partial partial) {
    PartialWriter out = new PartialWriter(128);
    out.writeRaw(MAGIC, 0, MAGIC.length);
    out.writeByte(FORMAT_VERSION);
    out.writeByte(partial.kind().tag());
    partial.writeTo(out);
    return out.toByteArray();
  }

  /**
   * @throws PartialFormatException if the bytes are not a partial of a known kind in format 1
   */
  public static Partial decode(byte[] bytes) {
    if (bytes == null) {
      throw new PartialFormatException("no bytes");
    }
    PartialReader in = new PartialReader(bytes);
    if (bytes.length < MAGIC.length + 2) {
      throw new PartialFormatException("truncated: " + bytes.length + " bytes is not a partial");
    }
    for (byte b : MAGIC) {
      if (in.readByte() != (b & 0xFF)) {
        throw new PartialFormatException("not an encoded partial: wrong magic bytes");
      }
    }
    int version = in.readByte();
    if (version != FORMAT_VERSION) {
      throw new PartialFormatException(
          "unsupported partial format version " + version + " (supported: " + FORMAT_VERSION + ")");
    }
    Partial partial = read(PartialKind.ofTag(in.readByte()), in);
    in.requireEnd();
    return partial;
  }

  /** Reads the parameters and body of a partial of {@code kind}, as its {@code writeTo} wrote. */
  static Partial read(PartialKind kind, PartialReader in) {
    try {
      return switch (kind) {
        case RAW -> RawPartial.readFrom(in);
        case GROUP -> GroupPartial.readFrom(in);
        case COUNT_DISTINCT -> CountDistinctPartial.readFrom(in);
        case DISTRIBUTION -> DistributionPartial.readFrom(in);
        case TOP_K -> TopKPartial.readFrom(in);
        case EVENT_TIME -> EventTimePartial.readFrom(in);
      };
    } catch (PartialFormatException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new PartialFormatException("malformed " + kind + " partial: " + e.getMessage(), e);
    }
  }
}
