package io.spyglass.service.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.json.JsonMessages;
import java.util.Map;

/** JSON in and out of the API: one mapper, error bodies, and writing a response. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final String TYPE = "application/json";

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** {@code {"error": {"message": ..., "resolution": ..., extra...}}}. */
  static ObjectNode error(String message, String resolution, Map<String, Object> extra) {
    ObjectNode body = object();
    ObjectNode e = body.putObject("error");
    e.put("message", message);
    e.put("resolution", resolution);
    extra.forEach((k, v) -> e.set(k, MAPPER.valueToTree(v)));
    return body;
  }

  static ObjectNode error(ApiException e) {
    return error(e.getMessage(), e.resolution(), e.extra());
  }

  /** {@code {"errors": [{"line", "column", "message", "fix"}, ...]}}: an invalid query. */
  static ObjectNode errors(BqlException e) {
    ObjectNode body = object();
    ArrayNode list = body.putArray("errors");
    for (BqlError err : e.errors()) {
      ObjectNode o = list.addObject();
      o.put("line", err.span().line());
      o.put("column", err.span().column());
      o.put("message", err.message());
      o.put("fix", err.resolution());
      o.put("start", err.span().start());
      o.put("end", err.span().end());
    }
    return body;
  }

  static void send(Context ctx, int status, JsonNode body) {
    ctx.status(status).contentType(TYPE).result(write(body));
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses a request body that must be a JSON object; a 400 says where it is not. */
  static ObjectNode parseObject(String body) {
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(
          "The request body is not valid JSON: "
              + JsonMessages.of(e)
              + (e.getLocation() == null
                  ? ""
                  : " (line "
                      + e.getLocation().getLineNr()
                      + ", column "
                      + e.getLocation().getColumnNr()
                      + ")"),
          "Send a JSON object, e.g. {\"query\": \"SELECT * FROM STREAM(10s, TIME)\"}");
    }
    if (node == null || !node.isObject()) {
      throw ApiException.badRequest(
          "The request body must be a JSON object",
          "Send a JSON object, e.g. {\"query\": \"SELECT * FROM STREAM(10s, TIME)\"}");
    }
    return (ObjectNode) node;
  }
}
