package io.spyglass.core.partial;

/**
 * Group keys as bytes, the items of frequent-items images ({@link Sketches.Frequent}): per key a
 * varint arity, then each value in {@link ValueCodec} form. Decoding checks arity and bounds.
 */
final class GroupKeyCodec {
  private final int arity;

  GroupKeyCodec(int arity) {
    this.arity = arity;
  }

  static byte[] encode(GroupKey item) {
    PartialWriter out = new PartialWriter(32);
    write(out, item);
    return out.toByteArray();
  }

  static byte[] encode(GroupKey[] items) {
    PartialWriter out = new PartialWriter(32 * Math.max(1, items.length));
    for (GroupKey item : items) {
      write(out, item);
    }
    return out.toByteArray();
  }

  private static void write(PartialWriter out, GroupKey item) {
    out.writeVarInt(item.size());
    for (int i = 0; i < item.size(); i++) {
      ValueCodec.write(out, item.get(i));
    }
  }

  /** The first {@code count} keys of {@code bytes}. */
  GroupKey[] decode(byte[] bytes, int count) {
    PartialReader in = new PartialReader(bytes);
    if (count < 0 || count > in.remaining()) {
      throw new PartialFormatException("bad item count " + count);
    }
    GroupKey[] out = new GroupKey[count];
    for (int i = 0; i < count; i++) {
      out[i] = read(in);
    }
    return out;
  }

  /** Bytes taken by the first {@code count} keys of {@code bytes}. */
  int sizeOf(byte[] bytes, int count) {
    PartialReader in = new PartialReader(bytes);
    int start = in.position();
    for (int i = 0; i < count; i++) {
      read(in);
    }
    return in.position() - start;
  }

  private GroupKey read(PartialReader in) {
    int n = in.readVarInt();
    if (n != arity) {
      throw new PartialFormatException("key of " + n + " values, expected " + arity);
    }
    Object[] values = new Object[n];
    for (int k = 0; k < n; k++) {
      values[k] = ValueCodec.read(in);
    }
    return GroupKey.wrap(values);
  }
}
