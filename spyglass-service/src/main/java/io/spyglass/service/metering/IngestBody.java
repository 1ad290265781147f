package io.spyglass.service.metering;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.RecordScanner;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.json.JsonMessages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The documents of an ingestion request body: JSON lines (one object a line; blank lines skipped)
 * or one JSON array of objects. A document is taken when the engine reads it (the engine's own
 * reader, within its limits: {@link JsonRecordReader.Limits#DEFAULTS}), no key is given twice in
 * one of its objects, its id (a string or an integer in a top-level field, compared as text) is 1
 * to {@value #MAX_ID_BYTES} bytes, and, for a token bound to tenants, its tenant field holds one of
 * them. Any other is rejected by its index (0-based, among the lines that are not blank, or the
 * array's elements) with the reason; the others are taken.
 */
public final class IngestBody {
  /**
   * Jackson's bounds, for the elements of an array body, as wide as the engine's reader's, which
   * decides on each: a document it takes is never refused for the length of a name or a number.
   */
  private static final StreamReadConstraints AS_WIDE_AS_THE_READER =
      StreamReadConstraints.builder()
          .maxNameLength(JsonRecordReader.Limits.DEFAULT_MAX_NAME_BYTES)
          .maxNumberLength(JsonRecordReader.Limits.DEFAULT_MAX_NUMBER_CHARS)
          .build();

  private static final JsonFactory ARRAY =
      JsonFactory.builder().streamReadConstraints(AS_WIDE_AS_THE_READER).build();

  /** The longest id, in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 256;

  /**
   * What a document must be.
   *
   * @param idField the top-level field of its id
   * @param tenantField the top-level field of its tenant
   * @param tenants the tenants it may be of; null for any (the field is then not read)
   */
  public record Rules(String idField, String tenantField, Set<String> tenants) {
    /** Documents of any tenant. */
    public static Rules anyTenant(String idField) {
      return new Rules(idField, null, null);
    }
  }

  /** A document refused: its index and why. */
  public record Rejected(int index, String reason) {}

  /** The documents to take, and those refused. */
  public record Parsed(List<Ingestor.Doc> docs, List<Rejected> rejected) {}

  /** Refused whole: a JSON array that does not parse (its elements cannot be told apart). */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  private IngestBody() {}

  /** Splits and checks {@code body[0, length)} for documents of any tenant. */
  public static Parsed parse(byte[] body, int length, String idField) throws Malformed {
    return parse(body, length, Rules.anyTenant(idField));
  }

  /**
   * Splits and checks {@code body[0, length)}; the documents returned point into it.
   *
   * @throws Malformed when the body is a JSON array that does not parse
   */
  public static Parsed parse(byte[] body, int length, Rules rules) throws Malformed {
    int i = 0;
    while (i < length && Character.isWhitespace(body[i])) {
      i++;
    }
    Checker checker = new Checker(rules);
    if (i < length && body[i] == '[') {
      return array(body, i, length, checker);
    }
    return lines(body, length, checker);
  }

  private static Parsed lines(byte[] body, int length, Checker checker) {
    List<Ingestor.Doc> docs = new ArrayList<>();
    List<Rejected> rejected = new ArrayList<>();
    int index = 0;
    int start = 0;
    while (start < length) {
      int end = start;
      while (end < length && body[end] != '\n') {
        end++;
      }
      int s = start;
      int e = end;
      while (s < e && Character.isWhitespace(body[s])) {
        s++;
      }
      while (e > s && Character.isWhitespace(body[e - 1])) {
        e--;
      }
      if (e > s) {
        checker.check(body, s, e - s, index, docs, rejected);
        index++;
      }
      start = end + 1;
    }
    return new Parsed(docs, rejected);
  }

  private static Parsed array(byte[] body, int from, int length, Checker checker) throws Malformed {
    List<Ingestor.Doc> docs = new ArrayList<>();
    List<Rejected> rejected = new ArrayList<>();
    try (JsonParser p = ARRAY.createParser(body, from, length - from)) {
      p.nextToken(); // [
      int index = 0;
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t == null) {
          throw new Malformed("the JSON array is not closed");
        }
        int s = from + (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        int e = from + (int) p.currentLocation().getByteOffset();
        if (t != JsonToken.START_OBJECT) {
          rejected.add(new Rejected(index, "not a JSON object"));
        } else {
          checker.check(body, s, e - s, index, docs, rejected);
        }
        index++;
      }
      if (p.nextToken() != null) {
        throw new Malformed("something follows the JSON array");
      }
    } catch (JsonProcessingException e) {
      throw new Malformed(
          "the JSON array does not parse: "
              + JsonMessages.of(e)
              + " (byte "
              + (e.getLocation() == null ? "?" : from + e.getLocation().getByteOffset())
              + ")");
    } catch (IOException e) {
      throw new Malformed("the body cannot be read: " + e.getMessage());
    }
    return new Parsed(docs, rejected);
  }

  /**
   * Checks documents one by one, each with one scan by the engine's own: the document checked
   * whole, its id and tenant fields found, nothing decoded but them; then its names walked once
   * more for a name given twice. One per request (a scanner is not thread-safe).
   */
  private static final class Checker {
    private final RecordScanner scanner = new RecordScanner(JsonRecordReader.Limits.DEFAULTS);
    private final Rules rules;
    private final int idSlot;
    private final int tenantSlot;

    /** The id of the document checked last, when it is taken. */
    private String id;

    Checker(Rules rules) {
      this.rules = rules;
      Set<String> fields = new LinkedHashSet<>();
      fields.add(rules.idField());
      if (rules.tenants() != null) {
        fields.add(rules.tenantField());
      }
      scanner.select(fields);
      idSlot = scanner.slot(rules.idField());
      tenantSlot = rules.tenants() == null ? -1 : scanner.slot(rules.tenantField());
    }

    void check(
        byte[] b, int offset, int length, int index, List<Ingestor.Doc> docs, List<Rejected> out) {
      if (!scanner.scan(b, offset, length)) {
        // the engine would count it as malformed and skip it: refused here, never acknowledged
        MalformedRecordException e = scanner.failure();
        out.add(new Rejected(index, e.reason().description() + ": " + e.getMessage()));
        return;
      }
      String twice = scanner.duplicateName();
      if (twice != null) {
        out.add(
            new Rejected(
                index,
                "a key is given twice in one object ('"
                    + twice
                    + "'): which of its values counts would be a guess; send each key once"));
        return;
      }
      String reason = reason();
      if (reason != null) {
        out.add(new Rejected(index, reason));
      } else {
        docs.add(new Ingestor.Doc(id, b, offset, length));
      }
    }

    /**
     * Why the document scanned last is refused for its id or tenant; null when it is not (its id is
     * then {@link #id}).
     */
    private String reason() {
      String idField = rules.idField();
      byte kind = scanner.kind(idSlot);
      if (kind == RecordScanner.ABSENT) {
        return "no id: the field \"" + idField + "\" is missing or empty";
      }
      int raw = scanner.end(idSlot) - scanner.start(idSlot);
      if (kind == RecordScanner.STRING && raw > MAX_ID_BYTES) {
        return tooLong(raw); // told before it is decoded: its bytes are its UTF-8
      }
      String id = text(idSlot);
      if (id == null) {
        return "the id field \"" + idField + "\" must be a string or an integer";
      }
      if (id.isEmpty()) {
        return "no id: the field \"" + idField + "\" is missing or empty";
      }
      int idBytes =
          kind == RecordScanner.ESCAPED_STRING
              ? id.getBytes(StandardCharsets.UTF_8).length
              : id.length(); // an integer's digits, or a string checked above
      if (idBytes > MAX_ID_BYTES) {
        return tooLong(idBytes);
      }
      this.id = id;
      if (tenantSlot < 0) {
        return null;
      }
      String tenant = text(tenantSlot);
      if (tenant != null && rules.tenants().contains(tenant)) {
        return null;
      }
      List<String> mine = rules.tenants().stream().sorted().toList();
      return tenant == null
          ? "no tenant: the field \""
              + rules.tenantField()
              + "\" is missing or not a string; this token ingests only for "
              + mine
          : "the tenant \""
              + tenant
              + "\" (field \""
              + rules.tenantField()
              + "\") is not one of this token's tenants "
              + mine;
    }

    private static String tooLong(int idBytes) {
      return "the id is " + idBytes + " bytes long; an id is at most " + MAX_ID_BYTES + " bytes";
    }

    /**
     * The text of a string or an integer field of the document scanned last (an integer as
     * written); null for any other value, or none.
     */
    private String text(int slot) {
      return switch (scanner.kind(slot)) {
        case RecordScanner.STRING, RecordScanner.ESCAPED_STRING -> (String) scanner.value(slot);
        case RecordScanner.INTEGER, RecordScanner.BIG_INTEGER ->
            new String(
                scanner.bytes(),
                scanner.start(slot),
                scanner.end(slot) - scanner.start(slot),
                StandardCharsets.ISO_8859_1);
        default -> null;
      };
    }
  }
}
