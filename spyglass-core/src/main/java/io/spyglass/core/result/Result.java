package io.spyglass.core.result;

import java.util.List;
import java.util.Map;

/**
 * What a query emits: the records of one window (or of the whole query when it has no window) and
 * metadata about the query, the window and the sketches behind the records. See {@code
 * docs/results.md} for the JSON form.
 *
 * @param records result records, column name to boxed value, in column order
 * @param meta metadata
 */
public record Result(List<Map<String, Object>> records, Meta meta) {
  public Result {
    records = List.copyOf(records);
  }

  /** The JSON form: {@code {"records": [...], "meta": {...}}} on one line. */
  public String toJson() {
    return ResultJson.write(this);
  }
}
