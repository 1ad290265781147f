package io.spyglass.service.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * Jackson's parse errors as a client should read them: for the HTTP layer's bodies and for ingested
 * documents alike (so ingestion does not depend on the HTTP layer).
 */
public final class JsonMessages {
  /** Where Jackson says a container started: its source description, then line and column. */
  private static final Pattern SOURCE =
      Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]");

  private JsonMessages() {}

  /**
   * The parser's message without the description of its source, which says nothing to a client
   * ("[Source: REDACTED ...; line: 1, column: 11]" becomes "line 1, column 11").
   */
  public static String of(JsonProcessingException e) {
    String m = e.getOriginalMessage();
    return m == null ? "" : SOURCE.matcher(m).replaceAll("line $1, column $2");
  }
}
