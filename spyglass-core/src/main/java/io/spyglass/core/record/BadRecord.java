package io.spyglass.core.record;

/**
 * Why input could not be read as a record. Bad input is counted by reason and skipped; the other
 * records go on. {@link #key()} names the reason in results and metrics. A record has one reason:
 * {@link #TOO_LONG} over the record size limit, else {@link #BINARY} when it has a NUL byte, else
 * {@link #INVALID_UTF8} when its bytes are not UTF-8, else the reason of the first error in its
 * JSON text.
 */
public enum BadRecord {
  /** Not valid JSON (a missing quote, comma or brace, a bare word). */
  MALFORMED_JSON("malformedJson", "malformed JSON"),
  /** The input ends inside the record: a truncated line, usually the last one of a file. */
  TRUNCATED("truncated", "truncated JSON"),
  /** Bytes that are not UTF-8. */
  INVALID_UTF8("invalidUtf8", "invalid UTF-8"),
  /** {@code NaN}, {@code Infinity}: numbers that JSON does not have. */
  NOT_A_NUMBER("notANumber", "NaN or Infinity, which JSON has no numbers for"),
  /** Valid JSON, but an array or a single value rather than an object. */
  NOT_AN_OBJECT("notAnObject", "not a JSON object"),
  /** Binary data (NUL bytes), such as a compressed or image file read as text. */
  BINARY("binary", "binary data"),
  /**
   * Longer than the record size limit ({@code maxLine} of file sources), or holding a string longer
   * than the string limit (by default the same).
   */
  TOO_LONG("tooLong", "longer than the record size limit"),
  /** Objects or arrays nested deeper than the limit. */
  TOO_DEEP("tooDeep", "nested too deeply"),
  /** A record without a value, such as a Kafka tombstone. */
  NO_VALUE("noValue", "no value"),
  /**
   * A number written with more characters than the limit ({@value
   * JsonRecordReader.Limits#DEFAULT_MAX_NUMBER_CHARS}).
   */
  NUMBER_TOO_LONG("numberTooLong", "a number longer than the limit"),
  /**
   * A field name longer than the limit ({@value JsonRecordReader.Limits#DEFAULT_MAX_NAME_BYTES}
   * bytes).
   */
  NAME_TOO_LONG("nameTooLong", "a field name longer than the limit");

  private final String key;
  private final String description;

  BadRecord(String key, String description) {
    this.key = key;
    this.description = description;
  }

  /** The reason's name in results and metrics, e.g. {@code malformedJson}. */
  public String key() {
    return key;
  }

  /** The reason for people, e.g. {@code malformed JSON}. */
  public String description() {
    return description;
  }
}
