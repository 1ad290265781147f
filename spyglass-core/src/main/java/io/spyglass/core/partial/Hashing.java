package io.spyglass.core.partial;

import java.util.List;
import java.util.Map;

/**
 * A 64-bit hash of codec values that is stable across processes and versions (group sampling
 * depends on every worker computing the same hash for the same key), consistent with {@link
 * Object#equals}: {@code Integer 1} and {@code Long 1} differ, maps hash regardless of entry order.
 * No allocation.
 */
final class Hashing {
  private static final long SEED = 0x9E3779B97F4A7C15L;
  private static final long FNV_PRIME = 0x100000001B3L;

  private Hashing() {}

  /** The hash of a tuple of values, over all 64 bits. */
  static long hash(Object[] values) {
    long h = SEED;
    for (Object v : values) {
      h = Long.rotateLeft(h ^ hashValue(v), 27) * 0xC2B2AE3D27D4EB4FL + 0x52DCE729L;
    }
    return fmix64(h ^ values.length);
  }

  /** The hash of a tuple, as a non-negative long: the sampling hash compared with theta. */
  static long sampleHash(Object[] values) {
    return hash(values) >>> 1;
  }

  static long hashValue(Object v) {
    if (v == null) {
      return 0x7A3C1E5F00000001L;
    }
    if (v instanceof String) {
      // String.hashCode is specified, so every process agrees, and cached in the string: the many
      // queries that group by the same field of a record hash its value once
      String s = (String) v;
      return fmix64(((long) s.hashCode() << 32) ^ s.length() ^ 0x5354524900000000L);
    }
    if (v instanceof Long) {
      return fmix64((Long) v ^ 0x4C4F4E4700000000L);
    }
    if (v instanceof Integer) {
      return fmix64((Integer) v ^ 0x494E540000000000L);
    }
    if (v instanceof Double) {
      return fmix64(Double.doubleToLongBits((Double) v) ^ 0x444F55424C450000L);
    }
    if (v instanceof Float) {
      return fmix64(Float.floatToIntBits((Float) v) ^ 0x464C4F4154000000L);
    }
    if (v instanceof Boolean) {
      return (Boolean) v ? 0x5D3A8F1B2C4E6071L : 0x1E2D3C4B5A697887L;
    }
    if (v instanceof List) {
      long h = 0x4C49535400000000L;
      for (Object o : (List<?>) v) {
        h = (h ^ hashValue(o)) * 0x9E3779B97F4A7C15L;
        h = Long.rotateLeft(h, 31);
      }
      return fmix64(h);
    }
    if (v instanceof Map) {
      long sum = 0;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        sum += fmix64(hashValue(e.getKey()) * 31 + hashValue(e.getValue()));
      }
      return fmix64(sum ^ 0x4D41500000000000L);
    }
    return fmix64(v.hashCode());
  }

  /** MurmurHash3's 64-bit finalizer. */
  static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xFF51AFD7ED558CCDL;
    k ^= k >>> 33;
    k *= 0xC4CEB9FE1A85EC53L;
    k ^= k >>> 33;
    return k;
  }
}
