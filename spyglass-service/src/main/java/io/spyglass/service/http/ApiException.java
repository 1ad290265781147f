package io.spyglass.service.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request that cannot be served: its HTTP status and a body {@code {"error": {"message",
 * "resolution", ...}}} that says why and what to do. Thrown by handlers, answered by the server.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String resolution;
  private final transient Map<String, Object> extra = new LinkedHashMap<>();
  private final transient Map<String, String> headers = new LinkedHashMap<>();

  public ApiException(int status, String message, String resolution) {
    super(message);
    this.status = status;
    this.resolution = resolution;
  }

  public int status() {
    return status;
  }

  public String resolution() {
    return resolution;
  }

  /** Adds a field to the error object, beside message and resolution. */
  public ApiException with(String field, Object value) {
    extra.put(field, value);
    return this;
  }

  public ApiException header(String name, String value) {
    headers.put(name, value);
    return this;
  }

  public Map<String, Object> extra() {
    return extra;
  }

  public Map<String, String> headers() {
    return headers;
  }

  static ApiException badRequest(String message, String resolution) {
    return new ApiException(400, message, resolution);
  }

  static ApiException notFound(String message, String resolution) {
    return new ApiException(404, message, resolution);
  }
}
