package io.spyglass.service.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Errors Jetty answers itself, before a request reaches the API (a malformed request line, headers
 * too large, a URI too long): the same JSON body as the API's errors, never an HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(JsonErrorHandler.class);

  @Override
  protected void generateResponse(
      Request request, Response response, int code, String message, Throwable cause, Callback cb) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, Json.TYPE);
    byte[] body;
    if (code >= 500) {
      // the message is an exception's text: into the log, under an id, never into the answer
      String id = ApiServer.errorId();
      LOG.error(
          "{} {} failed (error {}): {}",
          request.getMethod(),
          request.getHttpURI().getPath(),
          id,
          message,
          cause);
      body = Json.write(ApiServer.internalError(id)).getBytes(StandardCharsets.UTF_8);
    } else {
      body = body(code, message);
    }
    response.write(true, ByteBuffer.wrap(body), cb);
  }

  private static byte[] body(int code, String message) {
    String m = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
    String resolution =
        switch (code) {
          case 431 -> "Send smaller headers";
          case 414 -> "Send a shorter URI: put the query in the request body";
          case 413 -> "Send a body of at most 1 MiB";
          case 408 -> "Send the request at once, without pauses";
          default -> "Send a well-formed HTTP/1.1 request";
        };
    return Json.write(Json.error(m, resolution, Map.of())).getBytes(StandardCharsets.UTF_8);
  }
}
