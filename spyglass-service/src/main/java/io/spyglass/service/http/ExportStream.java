package io.spyglass.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/**
 * {@code GET /api/queries/{id}/export}: every result a query's log keeps, from the oldest, then,
 * for a running query, each new one as it comes until the query ends; written without blocking (the
 * servlet's non-blocking output takes the next result only when the connection can take it), so
 * that an export of any size holds one result at a time.
 *
 * <p>NDJSON: each result's JSON (as {@code /results} streams it) on a line. CSV (RFC 4180, CRLF): a
 * header {@code window} and the columns of the first result with records (in the order they first
 * appear in it), then a line per record with its window's number; a column that first appears in a
 * later result is left out (NDJSON has it); a nested value is its JSON; a text that a spreadsheet
 * would take for a formula (it starts with {@code = + - @}, a tab or a carriage return) is written
 * with a {@code '} in front, numbers stay numbers.
 *
 * <p>An export that reads slower than the query's log drops its oldest results (beyond {@code
 * --keep}'s count and bytes per query) misses them: in NDJSON a line {@code {"error": {...}}} says
 * how many, in CSV they are absent.
 */
final class ExportStream implements ResultLog.Subscriber, WriteListener, AsyncListener {
  /** What an export is written as. */
  enum Format {
    NDJSON("application/x-ndjson; charset=utf-8", "ndjson"),
    CSV("text/csv; charset=utf-8; header=present", "csv");

    final String type;
    final String extension;

    Format(String type, String extension) {
      this.type = type;
      this.extension = extension;
    }

    /** The format of {@code ?format=}: ndjson (the default) or csv; else 400. */
    static Format of(String param) {
      if (param == null || param.isBlank() || param.equalsIgnoreCase("ndjson")) {
        return NDJSON;
      }
      if (param.equalsIgnoreCase("csv")) {
        return CSV;
      }
      throw ApiException.badRequest(
          "An export's format is ndjson or csv, not '" + param + "'",
          "Ask for ?format=ndjson (a result's JSON a line) or ?format=csv (a record a line)");
    }
  }

  private static final byte[] CRLF = {'\r', '\n'};

  private final ServiceQuery query;
  private final Format format;
  private final QueryManager manager;
  private final HttpServletRequest req;
  private final HttpServletResponse res;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private ServletOutputStream out;
  private long cursor;
  private byte[] chunk;
  private boolean unflushed;
  private boolean finished;
  private boolean joined;

  /** The CSV's columns, once a result with records gave them; null before. */
  private List<String> columns;

  /** Results that were numbered without a window: their number in the export. */
  private long results;

  ExportStream(
      ServiceQuery query,
      Format format,
      QueryManager manager,
      HttpServletRequest req,
      HttpServletResponse res) {
    this.query = query;
    this.format = format;
    this.manager = manager;
    this.req = req;
    this.res = res;
  }

  /** Starts writing (the request must be asynchronous already); completes when it ends. */
  CompletableFuture<Void> start() throws IOException {
    res.setStatus(200);
    res.setContentType(format.type);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader(
        "Content-Disposition",
        "attachment; filename=\"spyglass-" + query.id() + "." + format.extension + "\"");
    res.setHeader("Connection", "close");
    manager.clientJoined(query);
    joined = true;
    req.getAsyncContext().addListener(this);
    noIdleTimeout();
    out = res.getOutputStream();
    out.setWriteListener(this);
    query.log().subscribe(this);
    return done;
  }

  /**
   * Keeps the connection while the query is quiet: a window of minutes writes nothing for minutes,
   * and the connection's idle timeout (60 s) would cut the export. A client gone is noticed at the
   * next write; an export holds one of its user's streams meanwhile.
   */
  private void noIdleTimeout() {
    ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r != null) {
      try {
        r.getConnectionMetaData().getConnection().getEndPoint().setIdleTimeout(0);
      } catch (RuntimeException e) {
        // keeps its idle timeout: an export of a quiet query may be cut, and can be asked again
      }
    }
  }

  @Override
  public void wake() {
    pump();
  }

  @Override
  public void onWritePossible() {
    pump();
  }

  /** Writes what it can without blocking. */
  private synchronized void pump() {
    if (finished || out == null) {
      return;
    }
    ResultLog log = query.log();
    try {
      while (out.isReady()) {
        if (chunk != null) {
          out.write(chunk);
          chunk = null;
          unflushed = true;
          continue;
        }
        ResultLog.Event e = log.next(cursor);
        if (e != null) {
          long missed = e.id() - cursor - 1;
          cursor = e.id();
          chunk = encode(e, missed);
          continue;
        }
        if (unflushed) {
          out.flush();
          unflushed = false;
          continue;
        }
        if (log.isEnded() && cursor >= log.lastId()) {
          if (format == Format.CSV && columns == null) {
            chunk = header(List.of()); // a query without records: the header alone
            columns = List.of();
            continue;
          }
          finish();
          return;
        }
        return; // nothing to write until woken
      }
    } catch (IOException | IllegalStateException e) {
      finish(); // the client went away
    }
  }

  /** The bytes of one result: its NDJSON line, or its CSV lines (the header first). */
  private byte[] encode(ResultLog.Event e, long missed) throws IOException {
    if (format == Format.NDJSON) {
      byte[] json = new byte[e.jsonLength() + 1];
      e.copyJson(json, 0);
      json[json.length - 1] = '\n';
      if (missed <= 0) {
        return json;
      }
      byte[] gap =
          (Json.write(
                      Json.error(
                          missed
                              + " results before this one are no longer kept (the query's log"
                              + " keeps its newest), and are missing here",
                          "Export while the query runs and read as fast as it emits, or give the"
                              + " service a larger --keep",
                          Map.of("missed", missed)))
                  + "\n")
              .getBytes(StandardCharsets.UTF_8);
      byte[] both = new byte[gap.length + json.length];
      System.arraycopy(gap, 0, both, 0, gap.length);
      System.arraycopy(json, 0, both, gap.length, json.length);
      return both;
    }
    JsonNode result = Json.MAPPER.readTree(e.json());
    results++;
    JsonNode number = result.at("/meta/window/number");
    String window = number.isNumber() ? number.asText() : Long.toString(results);
    JsonNode records = result.path("records");
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    if (columns == null) {
      if (records.isEmpty()) {
        return new byte[0];
      }
      Set<String> seen = new LinkedHashSet<>();
      for (JsonNode r : records) {
        for (Map.Entry<String, JsonNode> f : r.properties()) {
          seen.add(f.getKey());
        }
      }
      columns = new ArrayList<>(seen);
      b.write(header(columns));
    }
    for (JsonNode r : records) {
      StringBuilder line = new StringBuilder(64).append(window);
      for (String c : columns) {
        line.append(',').append(field(cell(r.get(c))));
      }
      b.write(line.toString().getBytes(StandardCharsets.UTF_8));
      b.write(CRLF);
    }
    return b.toByteArray();
  }

  private static byte[] header(List<String> columns) {
    StringBuilder line = new StringBuilder("window");
    for (String c : columns) {
      line.append(',').append(field(defuse(c)));
    }
    return line.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A value as a CSV cell: numbers and booleans as they are, text defused, nested as JSON. */
  static String cell(JsonNode v) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return "";
    }
    if (v.isNumber() || v.isBoolean()) {
      return v.asText();
    }
    if (v.isTextual()) {
      return defuse(v.asText());
    }
    return defuse(v.toString());
  }

  /** A text a spreadsheet will read as text: {@code '=1+2}, not a formula. */
  static String defuse(String s) {
    if (!s.isEmpty()) {
      char c = s.charAt(0);
      if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') {
        return "'" + s;
      }
    }
    return s;
  }

  /** A CSV field (RFC 4180): quoted when it holds a quote, comma or line break, or edge spaces. */
  static String field(String s) {
    boolean quote = false;
    for (int i = 0; i < s.length() && !quote; i++) {
      char c = s.charAt(i);
      quote = c == '"' || c == ',' || c == '\r' || c == '\n';
    }
    if (!quote && !s.isEmpty()) {
      quote =
          Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1));
    }
    return quote ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }

  private void finish() {
    if (finished) {
      return;
    }
    finished = true;
    query.log().unsubscribe(this);
    if (joined) {
      manager.clientLeft(query);
    }
    done.complete(null);
  }

  @Override
  public void onError(Throwable t) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onError(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onStartAsync(AsyncEvent event) {}
}
