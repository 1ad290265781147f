package io.spyglass.core.partial;

import io.spyglass.core.record.RawJson;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Raw records of a {@code SELECT} without aggregation, at most {@code limit} of them. Records are
 * kept by reference: the caller hands over ownership of each map it adds. A record kept as its JSON
 * ({@link RawJson}, a filter's {@code SELECT *}) may be encoded as its bytes, without being decoded
 * ({@link Partials#encode(Partial, boolean)}).
 */
public final class RawPartial implements Partial {
  private final int limit;

  /** Empty and shared until the first record: thousands of idle queries hold no list. */
  private List<Map<String, Object>> records = List.of();

  /**
   * @param limit most records kept, at least 1
   */
  public RawPartial(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1: " + limit);
    }
    this.limit = limit;
  }

  public int limit() {
    return limit;
  }

  /** Adds a record; false (and nothing kept) when the limit has been reached already. */
  public boolean add(Map<String, Object> record) {
    if (records.size() >= limit) {
      return false;
    }
    if (records.isEmpty()) {
      records = new ArrayList<>();
    }
    records.add(record);
    return true;
  }

  public boolean isFull() {
    return records.size() >= limit;
  }

  public int size() {
    return records.size();
  }

  @Override
  public PartialKind kind() {
    return PartialKind.RAW;
  }

  /** Appends the other state's records until the limit is reached. */
  @Override
  public void merge(Partial other) {
    if (!(other instanceof RawPartial) || ((RawPartial) other).limit != limit) {
      throw new IllegalArgumentException("cannot merge " + describe(other) + " into " + this);
    }
    for (Map<String, Object> r : ((RawPartial) other).records) {
      if (!add(r)) {
        return;
      }
    }
  }

  @Override
  public void writeTo(PartialWriter out) {
    out.writeVarInt(limit);
    out.writeVarInt(records.size());
    boolean keepJson = out.keepsJson();
    for (Map<String, Object> r : records) {
      ValueCodec.writeRecord(out, r, keepJson);
    }
  }

  /**
   * The bytes of JSON of the records kept as their JSON, which {@link Partials#encode(Partial,
   * boolean)} may write as they are; 0 when none is.
   */
  int keptJsonBytes() {
    int n = 0;
    for (Map<String, Object> r : records) {
      if (r instanceof RawJson j) {
        RawJson.Kept k = j.kept();
        if (k != null) {
          n += k.json().length + 1;
        }
      }
    }
    return n;
  }

  static RawPartial readFrom(PartialReader in) {
    int limit = in.readVarInt();
    if (limit < 1) {
      throw new PartialFormatException("raw limit must be at least 1: " + limit);
    }
    int n = in.readCount(2);
    if (n > limit) {
      throw new PartialFormatException(n + " raw records exceed the limit " + limit);
    }
    RawPartial p = new RawPartial(limit);
    for (int i = 0; i < n; i++) {
      p.add(ValueCodec.readRecord(in));
    }
    return p;
  }

  @Override
  public List<Map<String, Object>> rows() {
    return new ArrayList<>(records);
  }

  @Override
  public Map<String, Object> metadata() {
    return Collections.emptyMap();
  }

  @Override
  public boolean isEmpty() {
    return records.isEmpty();
  }

  @Override
  public void reset() {
    records = List.of();
  }

  @Override
  public RawPartial emptyCopy() {
    return new RawPartial(limit);
  }

  @Override
  public String toString() {
    return "RawPartial(limit=" + limit + ", records=" + records.size() + ")";
  }

  static String describe(Partial p) {
    return p == null ? "null" : p.toString();
  }
}
