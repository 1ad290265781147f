package io.spyglass.service.metering;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.http.JsonMessages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
   * Jackson's bounds as wide as the engine's reader's, which decides first: a document it takes is
   * never refused for the length of a name or a number by the parsers that find its id.
   */
  private static final StreamReadConstraints AS_WIDE_AS_THE_READER =
      StreamReadConstraints.builder()
          .maxNameLength(JsonRecordReader.Limits.DEFAULT_MAX_NAME_BYTES)
          .maxNumberLength(JsonRecordReader.Limits.DEFAULT_MAX_NUMBER_CHARS)
          .build();

  private static final JsonFactory ARRAY =
      JsonFactory.builder().streamReadConstraints(AS_WIDE_AS_THE_READER).build();
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(AS_WIDE_AS_THE_READER)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

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

  /** Checks documents one by one; one per request (the engine's reader is not thread-safe). */
  private static final class Checker {
    private final Rules rules;
    private final JsonRecordReader reader = new JsonRecordReader(JsonRecordReader.Limits.DEFAULTS);
    private final Record record = new Record();

    Checker(Rules rules) {
      this.rules = rules;
    }

    void check(
        byte[] b, int offset, int length, int index, List<Ingestor.Doc> docs, List<Rejected> out) {
      try {
        reader.read(b, offset, length, record);
      } catch (MalformedRecordException e) {
        // the engine would count it as malformed and skip it: refused here, never acknowledged
        String detail =
            e.getCause() instanceof JsonProcessingException j ? JsonMessages.of(j) : e.getMessage();
        out.add(new Rejected(index, e.reason().description() + ": " + detail));
        return;
      }
      String reasonOrId = idOf(b, offset, length);
      if (reasonOrId.startsWith("\u0000")) {
        out.add(new Rejected(index, reasonOrId.substring(1)));
      } else {
        docs.add(new Ingestor.Doc(reasonOrId, b, offset, length));
      }
    }

    /** The document's id; or, after a NUL character, why it is refused. */
    private String idOf(byte[] b, int offset, int length) {
      String idField = rules.idField();
      String tenantField = rules.tenants() == null ? null : rules.tenantField();
      try (JsonParser p = JSON.createParser(b, offset, length)) {
        if (p.nextToken() != JsonToken.START_OBJECT) {
          return "\u0000not a JSON object";
        }
        String id = null;
        String tenant = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (name.equals(idField)) {
            if (v != JsonToken.VALUE_STRING && v != JsonToken.VALUE_NUMBER_INT) {
              return "\u0000the id field \"" + idField + "\" must be a string or an integer";
            }
            id = p.getText();
          } else if (name.equals(tenantField)) {
            if (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT) {
              tenant = p.getText();
            } else {
              p.skipChildren();
            }
          } else {
            p.skipChildren();
          }
        }
        if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
          return "\u0000not one JSON object";
        }
        if (id == null || id.isEmpty()) {
          return "\u0000no id: the field \"" + idField + "\" is missing or empty";
        }
        int idBytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (idBytes > MAX_ID_BYTES) {
          return "\u0000the id is "
              + idBytes
              + " bytes long; an id is at most "
              + MAX_ID_BYTES
              + " bytes";
        }
        if (tenantField != null && (tenant == null || !rules.tenants().contains(tenant))) {
          List<String> mine = rules.tenants().stream().sorted().toList();
          return tenant == null
              ? "\u0000no tenant: the field \""
                  + tenantField
                  + "\" is missing or not a string; this token ingests only for "
                  + mine
              : "\u0000the tenant \""
                  + tenant
                  + "\" (field \""
                  + tenantField
                  + "\") is not one of this token's tenants "
                  + mine;
        }
        return id;
      } catch (JsonParseException e) {
        String m = String.valueOf(e.getOriginalMessage());
        if (m.startsWith("Duplicate field")) {
          return "\u0000a key is given twice in one object ("
              + m
              + "): which of its values counts would be a guess; send each key once";
        }
        return "\u0000not valid JSON: " + JsonMessages.of(e);
      } catch (JsonProcessingException e) {
        return "\u0000not valid JSON: " + JsonMessages.of(e);
      } catch (IOException e) {
        return "\u0000cannot be read: " + e.getMessage();
      }
    }
  }
}
