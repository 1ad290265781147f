package io.spyglass.service.metering;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.http.JsonMessages;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The documents of an ingestion request body: JSON lines (one object a line; blank lines skipped)
 * or one JSON array of objects. Each needs an id, a string or a number in a top-level field; a
 * document that is not a JSON object or has no id is rejected by its index (0-based, among the
 * lines that are not blank, or the array's elements), the others are taken.
 */
public final class IngestBody {
  private static final JsonFactory JSON = new JsonFactory();

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

  /**
   * Splits and checks {@code body[0, length)}; the documents returned point into it.
   *
   * @throws Malformed when the body is a JSON array that does not parse
   */
  public static Parsed parse(byte[] body, int length, String idField) throws Malformed {
    int i = 0;
    while (i < length && Character.isWhitespace(body[i])) {
      i++;
    }
    if (i < length && body[i] == '[') {
      return array(body, i, length, idField);
    }
    return lines(body, length, idField);
  }

  private static Parsed lines(byte[] body, int length, String idField) {
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
        String reasonOrId = idOf(body, s, e - s, idField);
        if (reasonOrId.startsWith("\u0000")) {
          rejected.add(new Rejected(index, reasonOrId.substring(1)));
        } else {
          docs.add(new Ingestor.Doc(reasonOrId, body, s, e - s));
        }
        index++;
      }
      start = end + 1;
    }
    return new Parsed(docs, rejected);
  }

  private static Parsed array(byte[] body, int from, int length, String idField) throws Malformed {
    List<Ingestor.Doc> docs = new ArrayList<>();
    List<Rejected> rejected = new ArrayList<>();
    try (JsonParser p = JSON.createParser(body, from, length - from)) {
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
          String reasonOrId = idOf(body, s, e - s, idField);
          if (reasonOrId.startsWith("\u0000")) {
            rejected.add(new Rejected(index, reasonOrId.substring(1)));
          } else {
            docs.add(new Ingestor.Doc(reasonOrId, body, s, e - s));
          }
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

  /** The document's id; or, after a NUL character, why it is refused. */
  private static String idOf(byte[] b, int offset, int length, String idField) {
    try (JsonParser p = JSON.createParser(b, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "\u0000not a JSON object";
      }
      String id = null;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (name.equals(idField) && id == null) {
          if (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT) {
            id = p.getText();
          } else {
            return "\u0000the id field \"" + idField + "\" must be a string or an integer";
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
      return id;
    } catch (JsonProcessingException e) {
      return "\u0000not valid JSON: " + JsonMessages.of(e);
    } catch (IOException e) {
      return "\u0000cannot be read: " + e.getMessage();
    }
  }
}
