package io.spyglass.core.record;

import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Reads one JSON object into a {@link Record}: every field, or only a selection. Integral numbers
 * that fit in a long become LONG, other numbers DOUBLE; nested objects and arrays become maps and
 * lists of boxed values. A name given twice keeps its last value, at the place of its first.
 *
 * <p>Records are read by {@link RecordScanner}, whose scan is the one definition of a valid record
 * (see {@link JsonScanner}): this reader, the filter-before-parse path and the whole-record read of
 * {@code SELECT *} accept and refuse the same bytes, for the same {@link BadRecord reason}.
 *
 * <p>With a field selection ({@link #select}), top-level fields outside it are checked and skipped
 * without building their values: a runtime passes the names its active queries reference.
 *
 * <p>Not thread-safe: one reader per thread.
 */
public final class JsonRecordReader {
  /**
   * Bounds on one record.
   *
   * @param maxDepth objects and arrays nest at most this deep, the record's own object counting one
   * @param maxStringLength a string (or name) has at most this many bytes as written
   * @param maxRecordBytes a record has at most this many bytes
   * @param maxNumberChars a number is written with at most this many characters
   * @param maxNameBytes a field name has at most this many bytes as written
   */
  public record Limits(
      int maxDepth, int maxStringLength, int maxRecordBytes, int maxNumberChars, int maxNameBytes) {
    public static final int DEFAULT_MAX_RECORD_BYTES = 4 << 20;
    public static final int DEFAULT_MAX_DEPTH = 64;

    /** Numbers of more characters are refused ({@link BadRecord#NUMBER_TOO_LONG}). */
    public static final int DEFAULT_MAX_NUMBER_CHARS = 1_000;

    /** Field names of more bytes are refused ({@link BadRecord#NAME_TOO_LONG}). */
    public static final int DEFAULT_MAX_NAME_BYTES = 65_536;

    public static final Limits DEFAULTS = forRecordBytes(DEFAULT_MAX_RECORD_BYTES);

    /** With the default bounds on numbers and names. */
    public Limits(int maxDepth, int maxStringLength, int maxRecordBytes) {
      this(
          maxDepth,
          maxStringLength,
          maxRecordBytes,
          DEFAULT_MAX_NUMBER_CHARS,
          DEFAULT_MAX_NAME_BYTES);
    }

    /** One size limit for records, which bounds their strings too; objects nest 64 deep. */
    public static Limits forRecordBytes(int maxRecordBytes) {
      return new Limits(DEFAULT_MAX_DEPTH, maxRecordBytes, maxRecordBytes);
    }
  }

  private final RecordScanner scanner;
  private Set<String> selection;

  public JsonRecordReader() {
    this(Limits.DEFAULTS);
  }

  public JsonRecordReader(Limits limits) {
    this.scanner = new RecordScanner(limits);
  }

  /**
   * Keeps only these top-level fields; {@code null} keeps all. The set must not change while in
   * use; pass a new one instead.
   */
  public void select(Set<String> topLevelFields) {
    this.selection = topLevelFields;
    scanner.select(topLevelFields == null ? Set.of() : topLevelFields);
  }

  public void read(String json, Record into) throws MalformedRecordException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    read(bytes, 0, bytes.length, into);
  }

  /**
   * Clears {@code into} and fills it with the JSON object in {@code bytes[offset, offset+length)}.
   * With a selection, the record is {@linkplain Record#partOf part of} the bytes, which must stay
   * unchanged while it is in use.
   *
   * @throws MalformedRecordException when the bytes are not one JSON object within the limits, with
   *     the {@link BadRecord reason}; the record's content is then unspecified
   */
  public void read(byte[] bytes, int offset, int length, Record into)
      throws MalformedRecordException {
    if (selection == null) {
      scanner.readWhole(bytes, offset, length, into);
    } else {
      scanner.read(bytes, offset, length, into);
    }
  }
}
