package io.spyglass.core.record;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Map;

/**
 * A record kept as JSON bytes that can write itself without being decoded: its bytes are copied
 * when they are already what writing the decoded record would give.
 */
public interface RawJson {
  /**
   * Writes this record as a JSON object to {@code g}, exactly as writing its decoded map field by
   * field with {@code values} would, or writes nothing and returns false when it cannot: when it
   * has been decoded already, when {@code g} formats its output (a pretty printer, escapes of its
   * own), or when the bytes are not in the form the generator writes (whitespace, escapes, numbers
   * written otherwise, a name repeated).
   */
  boolean writeRaw(JsonGenerator g, ValueWriter values) throws IOException;

  /**
   * The JSON this record is kept as and the fields set over it, as the record holds them (not
   * copies: never change them), so that it can travel as its bytes ({@link #of} on the other side);
   * null once the record has been decoded (it may have been changed since).
   */
  default Kept kept() {
    return null;
  }

  /**
   * A record as kept: one JSON object, and {@code names[i]} set to {@code values[i]} over its
   * fields (values boxed as a record's are), in that order.
   */
  record Kept(byte[] json, String[] names, Object[] values) {}

  /**
   * A record kept as {@code json} with {@code names[i]} set to {@code values[i]} over its fields,
   * decoded when first read and written as its bytes when they are what writing it would give: what
   * a runtime's filter keeps for {@code SELECT *}, after it travelled as its {@link Kept} parts.
   * Takes ownership of the arrays. The JSON is checked whole as records are when read (one JSON
   * object, UTF-8), without bounds on its size: a record that passed a filter passes here.
   *
   * @throws MalformedRecordException when {@code json} is not one JSON object
   */
  static Map<String, Object> of(byte[] json, String[] names, Object[] values)
      throws MalformedRecordException {
    return WholeRecord.checked(json, names, values);
  }

  /** Writes one boxed value, as the caller writes values. */
  @FunctionalInterface
  interface ValueWriter {
    void write(JsonGenerator g, Object value) throws IOException;
  }
}
