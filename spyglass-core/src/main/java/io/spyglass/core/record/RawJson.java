package io.spyglass.core.record;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

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

  /** Writes one boxed value, as the caller writes values. */
  @FunctionalInterface
  interface ValueWriter {
    void write(JsonGenerator g, Object value) throws IOException;
  }
}
