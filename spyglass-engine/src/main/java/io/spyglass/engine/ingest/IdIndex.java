package io.spyglass.engine.ingest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The ids of accepted documents, as 128-bit hashes (the first half of their SHA-256) with the time
 * each was accepted: what tells a repeated document from a new one. Open addressing with linear
 * probing and backward-shift deletion, 24 bytes per slot, at most half full: about 50 bytes per id
 * kept.
 *
 * <p>Not thread-safe: the {@link Ingestor}'s writer thread owns it (or another single writer, such
 * as the id journal of documents written to Kafka).
 */
public final class IdIndex {
  private long[] hi;
  private long[] lo;
  private long[] ms;
  private int size;
  private int mask;

  public IdIndex() {
    this(1 << 12);
  }

  IdIndex(int capacity) {
    int n = Integer.highestOneBit(Math.max(16, capacity - 1)) << 1;
    hi = new long[n];
    lo = new long[n];
    ms = new long[n];
    mask = n - 1;
  }

  /** The 128-bit hash of an id: never (0, 0), which marks an empty slot. */
  public static long[] hash(String id) {
    return hash(id.getBytes(StandardCharsets.UTF_8));
  }

  public static long[] hash(byte[] id) {
    byte[] d = sha256().digest(id);
    long h = 0;
    long l = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (d[i] & 0xFF);
      l = (l << 8) | (d[8 + i] & 0xFF);
    }
    return new long[] {h, l == 0 && h == 0 ? 1 : l};
  }

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every JVM has SHA-256", e);
            }
          });

  private static MessageDigest sha256() {
    return SHA256.get();
  }

  public int size() {
    return size;
  }

  private int slot(long h, long l) {
    long x = h ^ (l * 0x9E3779B97F4A7C15L);
    return (int) (x ^ (x >>> 32)) & mask;
  }

  /** When the id was accepted, or -1 when it is not here. */
  public long get(long h, long l) {
    for (int i = slot(h, l); ; i = (i + 1) & mask) {
      if (hi[i] == h && lo[i] == l) {
        return ms[i];
      }
      if (hi[i] == 0 && lo[i] == 0) {
        return -1;
      }
    }
  }

  /** Adds the id, or changes when it was accepted. */
  public void put(long h, long l, long acceptedMs) {
    if ((size + 1) * 2 > hi.length) {
      grow();
    }
    for (int i = slot(h, l); ; i = (i + 1) & mask) {
      if (hi[i] == h && lo[i] == l) {
        ms[i] = acceptedMs;
        return;
      }
      if (hi[i] == 0 && lo[i] == 0) {
        hi[i] = h;
        lo[i] = l;
        ms[i] = acceptedMs;
        size++;
        return;
      }
    }
  }

  /** Removes the id if it was accepted at {@code acceptedMs} (not since, again). */
  public void remove(long h, long l, long acceptedMs) {
    int i = slot(h, l);
    while (!(hi[i] == h && lo[i] == l)) {
      if (hi[i] == 0 && lo[i] == 0) {
        return;
      }
      i = (i + 1) & mask;
    }
    if (ms[i] != acceptedMs) {
      return;
    }
    // backward-shift deletion: move later entries of the probe run into the hole
    int hole = i;
    for (int j = (i + 1) & mask; hi[j] != 0 || lo[j] != 0; j = (j + 1) & mask) {
      int home = slot(hi[j], lo[j]);
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        hi[hole] = hi[j];
        lo[hole] = lo[j];
        ms[hole] = ms[j];
        hole = j;
      }
    }
    hi[hole] = 0;
    lo[hole] = 0;
    ms[hole] = 0;
    size--;
  }

  private void grow() {
    long[] oh = hi;
    long[] ol = lo;
    long[] om = ms;
    int n = oh.length * 2;
    // allocated before any is replaced: out of memory here leaves the index as it was
    long[] nh = new long[n];
    long[] nl = new long[n];
    long[] nm = new long[n];
    hi = nh;
    lo = nl;
    ms = nm;
    mask = n - 1;
    size = 0;
    for (int i = 0; i < oh.length; i++) {
      if (oh[i] != 0 || ol[i] != 0) {
        put(oh[i], ol[i], om[i]);
      }
    }
  }
}
