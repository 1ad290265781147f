package io.spyglass.core.partial;

/**
 * The binary form of partials.
 *
 * <pre>
 * magic   4 bytes  'S' 'G' 'P' 'S'
 * version 1 byte   1, or 2 (below)
 * kind    1 byte   {@link PartialKind#tag()}
 * params  kind-specific (limits, k, capacity, metric kinds and names, points...)
 * body    kind-specific; sketches as DataSketches' own serialized images (varint length + bytes)
 * </pre>
 *
 * Numbers are little-endian or varints (see {@link PartialWriter}); values use {@link ValueCodec}.
 * Format 2 is format 1 where a raw partial's records may be kept as their JSON ({@link
 * ValueCodec#writeRecord}): {@link #encode(Partial, boolean)} writes it for a raw partial holding
 * such records (a filter's {@code SELECT *}), so that they travel and are kept as the bytes they
 * were read from, never decoded on the way; every other partial is written in format 1. Decoding
 * rejects anything malformed with a {@link PartialFormatException} and never allocates more than
 * the input's size justifies.
 */
public final class Partials {
  static final byte[] MAGIC = {'S', 'G', 'P', 'S'};
  public static final int FORMAT_VERSION = 1;

  /** The format of a raw partial whose records are written as their JSON. */
  public static final int JSON_FORMAT_VERSION = 2;

  private Partials() {}

  /**
   * The DataSketches line behind the sketches on this JVM: {@code DataSketches 6} (Java 17 and 21)
   * or {@code DataSketches 9} (Java 25 and later, from the multi-release jar).
   */
  public static String sketchLibrary() {
    return Sketches.line();
  }

  /** In format 1: records kept as their JSON are written as maps, which decodes them. */
  public static byte[] encode(Partial partial) {
    return encode(partial, false);
  }

  /**
   * With {@code keepJson}, a raw partial's records kept as their JSON are written as their bytes,
   * in format {@value #JSON_FORMAT_VERSION} (which readers of format 1 alone refuse); any other
   * partial in format {@value #FORMAT_VERSION}, as {@link #encode(Partial)} writes it.
   */
  public static byte[] encode(Partial partial, boolean keepJson) {
    int json = keepJson && partial instanceof RawPartial r ? r.keptJsonBytes() : 0;
    PartialWriter out = new PartialWriter(128 + json);
    out.writeRaw(MAGIC, 0, MAGIC.length);
    out.writeByte(json > 0 ? JSON_FORMAT_VERSION : FORMAT_VERSION);
    out.writeByte(partial.kind().tag());
    partial.writeTo(out.keepJson(json > 0));
    return out.toByteArray();
  }

  /**
   * @throws PartialFormatException if the bytes are not a partial of a known kind in format 1 or 2
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
    if (version != FORMAT_VERSION && version != JSON_FORMAT_VERSION) {
      throw new PartialFormatException(
          "unsupported partial format version "
              + version
              + " (supported: "
              + FORMAT_VERSION
              + " and "
              + JSON_FORMAT_VERSION
              + ")");
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
