package io.spyglass.core.record;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Reads the selected top-level fields of JSON records after a structural scan at word speed: the
 * record is checked whole, the other fields are stepped over without being built, and a selected
 * field's raw value can be examined (see {@link #kind}, {@link #bytes}) before anything is decoded.
 * The scan is the one check of a record (see {@link JsonScanner}): what it accepts is decoded
 * without another check, now or later (a whole record read for {@code SELECT *}); what it refuses
 * is refused for one {@link BadRecord reason}, whatever fields are selected.
 *
 * <pre>{@code
 * scanner.select(Set.of("id", "device"));
 * if (scanner.scan(bytes, off, len)) {     // well formed; fields located, nothing decoded
 *   int id = scanner.slot("id");
 *   if (... decide from scanner.kind(id), scanner.start(id), scanner.end(id) ...) {
 *     scanner.decode(record);
 *   }
 * } else {
 *   scanner.read(bytes, off, len, record);  // the parser's verdict: a record or an exception
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one per thread.
 */
public final class RecordScanner {
  /** Raw kinds of a field's value after a scan. */
  public static final byte ABSENT = JsonScanner.ABSENT,
      STRING = JsonScanner.STRING,
      ESCAPED_STRING = JsonScanner.ESCAPED_STRING,
      INTEGER = JsonScanner.INTEGER,
      BIG_INTEGER = JsonScanner.BIG_INTEGER,
      DECIMAL = JsonScanner.DECIMAL,
      TRUE = JsonScanner.TRUE,
      FALSE = JsonScanner.FALSE,
      NULL = JsonScanner.NULL,
      OBJECT = JsonScanner.OBJECT,
      ARRAY = JsonScanner.ARRAY;

  private final JsonRecordReader.Limits limits;
  private final JsonScanner scanner = new JsonScanner();
  private final JsonDecoder decoder = new JsonDecoder();
  private DuplicateNames duplicates;
  private Set<String> selection = Set.of();
  private boolean scanned;

  /** The length of the bytes scanned last, for {@link #failure}. */
  private int lastLength;

  public RecordScanner() {
    this(JsonRecordReader.Limits.DEFAULTS);
  }

  public RecordScanner(JsonRecordReader.Limits limits) {
    this.limits = limits;
    scanner.limits(limits);
  }

  /**
   * Reads only these top-level fields from now on. The set must not change while in use; pass a new
   * one instead. Slots are renumbered.
   */
  public void select(Set<String> topLevelFields) {
    if (topLevelFields.equals(selection)) {
      selection = topLevelFields;
      return;
    }
    selection = topLevelFields;
    scanner.fields(new FieldTable(topLevelFields));
    scanned = false;
  }

  /** The selected fields. */
  public Set<String> selection() {
    return selection;
  }

  /** The slot of a selected field, or -1 when it is not selected. */
  public int slot(String name) {
    return scanner.fields().slot(name);
  }

  /**
   * Scans {@code bytes[offset, offset + length)}, which must not change until the record is decoded
   * and, for the fields the record does not hold, while it is in use ({@link Record#partOf}).
   *
   * @return true when the bytes are one valid JSON object within the limits, and the accessors
   *     describe the selected fields; false when they are not, and {@link #failure} says why
   */
  public boolean scan(byte[] bytes, int offset, int length) {
    lastLength = length;
    scanned = length <= limits.maxRecordBytes() && scanner.scan(bytes, offset, length);
    return scanned;
  }

  /**
   * Why the last scan failed, as the exception to count the record by: {@link BadRecord#TOO_LONG}
   * over the record size limit, else {@link BadRecord#BINARY} for a NUL byte, else {@link
   * BadRecord#INVALID_UTF8} for bytes that are not UTF-8 (wherever they are), else the reason of
   * the first error in the JSON text. Only after a scan that returned false.
   */
  public MalformedRecordException failure() {
    if (scanned) {
      throw new IllegalStateException("failure needs a failed scan first");
    }
    int len = lastLength;
    if (len > limits.maxRecordBytes()) {
      return new MalformedRecordException(
          BadRecord.TOO_LONG,
          "Record of " + len + " bytes exceeds the limit of " + limits.maxRecordBytes());
    }
    byte[] b = scanner.bytes();
    int off = scanner.offset();
    for (int i = off; i < off + len; i++) {
      if (b[i] == 0) {
        return refused(BadRecord.BINARY, "Binary data (a NUL byte)", i - off);
      }
    }
    int invalid = Utf8.firstInvalid(b, off, off + len);
    if (invalid >= 0) {
      return refused(BadRecord.INVALID_UTF8, "Invalid UTF-8", invalid - off);
    }
    BadRecord why = scanner.reason();
    int at = scanner.failedAt() - off;
    return switch (why) {
      case TOO_DEEP ->
          refused(why, "Nesting deeper than the limit of " + limits.maxDepth() + " levels", at);
      case TOO_LONG ->
          refused(
              why, "A string longer than the limit of " + limits.maxStringLength() + " bytes", at);
      case NUMBER_TOO_LONG ->
          refused(
              why,
              "A number longer than the limit of " + limits.maxNumberChars() + " characters",
              at);
      case NAME_TOO_LONG ->
          refused(
              why, "A field name longer than the limit of " + limits.maxNameBytes() + " bytes", at);
      case NOT_AN_OBJECT -> new MalformedRecordException(why, "Expected a JSON object");
      case NOT_A_NUMBER -> refused(why, "NaN or Infinity, which JSON has no numbers for", at);
      case TRUNCATED -> refused(why, "Truncated JSON: the input ends inside the record", at);
      default -> refused(why, "Malformed JSON", at);
    };
  }

  private static MalformedRecordException refused(BadRecord why, String what, int at) {
    return new MalformedRecordException(why, what + " at byte " + at);
  }

  /**
   * A name given twice in one object of the record scanned last (its own or one nested in it), as
   * the string it spells; null when there is none. The reader keeps such a name's last value; this
   * is for those who refuse the record instead (ingestion). It walks the record's bytes once more,
   * looking at names only.
   *
   * @throws IllegalStateException when the last scan did not vouch for its record
   */
  public String duplicateName() {
    if (!scanned) {
      throw new IllegalStateException("duplicateName needs a successful scan first");
    }
    if (duplicates == null) {
      duplicates = new DuplicateNames();
    }
    byte[] b = scanner.bytes();
    return duplicates.find(b, JsonDecoder.objectStart(b, scanner.offset()));
  }

  /** The kind of the selected field's value in the record scanned last; ABSENT when missing. */
  public byte kind(int slot) {
    return scanner.kind(slot);
  }

  /** The bytes scanned last. */
  public byte[] bytes() {
    return scanner.bytes();
  }

  /**
   * Where the field's value starts in {@link #bytes()}: the first byte inside a string's quotes,
   * the first byte of any other value.
   */
  public int start(int slot) {
    return scanner.start(slot);
  }

  /** Where the field's value ends, exclusive: before a string's closing quote. */
  public int end(int slot) {
    return scanner.end(slot);
  }

  /** The value of an {@link #INTEGER} field. */
  public long longValue(int slot) {
    return scanner.longValue(slot);
  }

  /**
   * The value of a field of any kind, as {@link JsonRecordReader} reads it: String, Long, Double,
   * Boolean, Map, List, or null for NULL and ABSENT.
   */
  public Object value(int slot) {
    byte[] b = scanner.bytes();
    switch (scanner.kind(slot)) {
      case JsonScanner.STRING:
        return JsonDecoder.plainString(b, scanner.start(slot), scanner.end(slot));
      case JsonScanner.ESCAPED_STRING:
        return decoder.escapedString(b, scanner.start(slot), scanner.end(slot));
      case JsonScanner.INTEGER:
        return scanner.longValue(slot);
      case JsonScanner.BIG_INTEGER:
        return JsonDecoder.number(b, scanner.start(slot), scanner.end(slot), true);
      case JsonScanner.DECIMAL:
        return JsonDecoder.parseDouble(b, scanner.start(slot), scanner.end(slot));
      case JsonScanner.TRUE:
        return Boolean.TRUE;
      case JsonScanner.FALSE:
        return Boolean.FALSE;
      case JsonScanner.OBJECT:
        return object(b, slot);
      case JsonScanner.ARRAY:
        return decoder.value(b, scanner.start(slot));
      default:
        return null;
    }
  }

  /**
   * The member {@code name} of an {@link #OBJECT} field, decoded alone without copying the object
   * (as the field's map would give it); null when absent, or when the field is not an object.
   */
  public Object member(int slot, String name) {
    return scanner.kind(slot) == JsonScanner.OBJECT
        ? JsonObjectMap.member(scanner.bytes(), scanner.start(slot), name)
        : null;
  }

  /** An object field as a map that decodes a member when it is read (see {@link JsonObjectMap}). */
  private JsonObjectMap object(byte[] b, int slot) {
    return new JsonObjectMap(Arrays.copyOfRange(b, scanner.start(slot), scanner.end(slot)));
  }

  /**
   * Clears {@code into} and fills it with the selected fields of the record scanned last, in the
   * order they first appear, and marks it {@linkplain Record#partOf part of} the scanned bytes.
   *
   * @throws IllegalStateException when the last scan did not vouch for its record
   */
  @SuppressWarnings("unchecked")
  public void decode(Record into) {
    if (!scanned) {
      throw new IllegalStateException("decode needs a successful scan first");
    }
    into.clear();
    JsonScanner s = scanner;
    FieldTable table = s.fields();
    byte[] b = s.bytes();
    for (int i = 0, n = s.found(); i < n; i++) {
      int slot = s.foundSlot(i);
      String name = table.name(slot);
      switch (s.kind(slot)) {
        case JsonScanner.STRING:
          into.putString(name, JsonDecoder.plainString(b, s.start(slot), s.end(slot)));
          break;
        case JsonScanner.INTEGER:
          into.putLong(name, s.longValue(slot));
          break;
        case JsonScanner.DECIMAL:
          into.putDouble(name, JsonDecoder.parseDouble(b, s.start(slot), s.end(slot)));
          break;
        case JsonScanner.TRUE:
          into.putBoolean(name, true);
          break;
        case JsonScanner.FALSE:
          into.putBoolean(name, false);
          break;
        case JsonScanner.NULL:
          into.putNull(name);
          break;
        case JsonScanner.OBJECT:
          into.putMap(name, object(b, slot));
          break;
        case JsonScanner.ARRAY:
          into.putList(name, (java.util.List<Object>) decoder.value(b, s.start(slot)));
          break;
        default:
          into.put(name, value(slot));
      }
    }
    into.partOf(b, s.offset(), s.length());
  }

  /**
   * Reads the selected fields of a record: {@link #scan}, then {@link #decode}.
   *
   * @throws MalformedRecordException when the bytes are not one JSON object within the limits:
   *     {@link #failure}
   */
  public void read(byte[] bytes, int offset, int length, Record into)
      throws MalformedRecordException {
    if (!scan(bytes, offset, length)) {
      into.clear();
      throw failure();
    }
    decode(into);
  }

  /**
   * Reads every field of a record, whatever the selection: {@link #scan}, then the whole object
   * decoded. The record is not {@linkplain Record#partOf partial}.
   *
   * @throws MalformedRecordException when the bytes are not one JSON object within the limits:
   *     {@link #failure}
   */
  @SuppressWarnings("unchecked")
  public void readWhole(byte[] bytes, int offset, int length, Record into)
      throws MalformedRecordException {
    into.clear();
    if (!scan(bytes, offset, length)) {
      throw failure();
    }
    Map<String, Object> whole =
        (Map<String, Object>) decoder.value(bytes, JsonDecoder.objectStart(bytes, offset));
    for (Map.Entry<String, Object> e : whole.entrySet()) {
      into.put(e.getKey(), e.getValue());
    }
  }
}
