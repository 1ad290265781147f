package io.spyglass.core.partial;

import java.util.Arrays;
import org.apache.datasketches.common.ArrayOfItemsSerDe;
import org.apache.datasketches.memory.Memory;

/**
 * Serializes {@link GroupKey}s for DataSketches' frequent-items images: per key a varint arity,
 * then each value in {@link ValueCodec} form. Decoding checks arity and bounds.
 */
final class GroupKeySerDe extends ArrayOfItemsSerDe<GroupKey> {
  private final int arity;

  GroupKeySerDe(int arity) {
    this.arity = arity;
  }

  @Override
  public byte[] serializeToByteArray(GroupKey item) {
    PartialWriter out = new PartialWriter(32);
    write(out, item);
    return out.toByteArray();
  }

  @Override
  public byte[] serializeToByteArray(GroupKey[] items) {
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

  @Override
  public GroupKey[] deserializeFromMemory(Memory mem, int numItems) {
    return deserializeFromMemory(mem, 0, numItems);
  }

  @Override
  public GroupKey[] deserializeFromMemory(Memory mem, long offsetBytes, int numItems) {
    PartialReader in = reader(mem, offsetBytes);
    if (numItems < 0 || numItems > in.remaining()) {
      throw new PartialFormatException("bad item count " + numItems);
    }
    GroupKey[] out = new GroupKey[numItems];
    for (int i = 0; i < numItems; i++) {
      out[i] = read(in);
    }
    return out;
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

  @Override
  public int sizeOf(GroupKey item) {
    return serializeToByteArray(item).length;
  }

  @Override
  public int sizeOf(Memory mem, long offsetBytes, int numItems) {
    PartialReader in = reader(mem, offsetBytes);
    int start = in.position();
    for (int i = 0; i < numItems; i++) {
      read(in);
    }
    return in.position() - start;
  }

  private static PartialReader reader(Memory mem, long offsetBytes) {
    long available = mem.getCapacity() - offsetBytes;
    if (offsetBytes < 0 || available < 0 || available > Integer.MAX_VALUE) {
      throw new PartialFormatException("bad item offset " + offsetBytes);
    }
    byte[] bytes = new byte[(int) available];
    mem.getByteArray(offsetBytes, bytes, 0, bytes.length);
    return new PartialReader(bytes);
  }

  @Override
  public String toString(GroupKey item) {
    return item == null ? "null" : Arrays.toString(item.toArray());
  }

  @Override
  public Class<GroupKey> getClassOfT() {
    return GroupKey.class;
  }
}
