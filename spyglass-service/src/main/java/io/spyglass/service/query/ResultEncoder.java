package io.spyglass.service.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes a result as the JSON (UTF-8) the service keeps, within a size: a result over it keeps the
 * records that fit, in their order, and says so with a non-fatal error in {@code meta.errors}. The
 * JSON is never built beyond the size (a window of raw records can be tens of megabytes).
 */
final class ResultEncoder {
  private static final JsonFactory JSON = new JsonFactory();

  private ResultEncoder() {}

  /** Why a result was cut: the end of the error's message, and what to do. */
  record Cut(String why, String resolution) {}

  /** Thrown by a {@link Bounded} stream asked to go over its size. */
  private static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("over the size", null, false, false);
    }
  }

  /** Bytes written, up to a size: a write beyond it throws {@link TooLarge}. */
  private static final class Bounded extends ByteArrayOutputStream {
    private final long max;

    Bounded(long max) {
      super(4096);
      this.max = max;
    }

    @Override
    public void write(int b) {
      if (count + 1L > max) {
        throw new TooLarge();
      }
      super.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (count + (long) len > max) {
        throw new TooLarge();
      }
      super.write(b, off, len);
    }
  }

  /** Counts bytes and keeps none. */
  private static final class Counting extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  /**
   * The result's JSON when it takes at most {@code maxBytes}; otherwise the JSON of the result cut
   * to the records that fit, with an error saying so ({@code why}). A result whose metadata alone
   * is over the size is kept with no records.
   */
  static byte[] encode(Result result, long maxBytes, Cut why) {
    byte[] whole = write(result, maxBytes);
    if (whole != null) {
      return whole;
    }
    int n = result.records().size();
    // the metadata as long as it will be: the kept count has at most as many digits as n
    long room = maxBytes - size(new Result(List.of(), result.meta().withError(error(why, n, n))));
    int keep = 0;
    Counting c = new Counting();
    try (JsonGenerator g = JSON.createGenerator(c)) {
      long taken = 0;
      for (Map<String, Object> record : result.records()) {
        long before = c.count;
        ResultJson.writeValue(g, record);
        g.flush();
        long size = c.count - before + 1; // and the comma before or after it
        if (taken + size > room) {
          break;
        }
        taken += size;
        keep++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Result cut =
        new Result(result.records().subList(0, keep), result.meta().withError(error(why, keep, n)));
    return write(cut, Long.MAX_VALUE);
  }

  private static Meta.QueryError error(Cut why, int kept, int of) {
    return new Meta.QueryError(
        "This result was cut to " + kept + " of its " + of + " records: " + why.why(),
        why.resolution(),
        false);
  }

  /** The result's JSON, or null when it is over {@code maxBytes}. */
  private static byte[] write(Result result, long maxBytes) {
    Bounded out = new Bounded(maxBytes);
    try {
      Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
      ResultJson.write(result, w);
      w.flush();
    } catch (TooLarge e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static long size(Result result) {
    Counting c = new Counting();
    try {
      Writer w = new OutputStreamWriter(c, StandardCharsets.UTF_8);
      ResultJson.write(result, w);
      w.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return c.count;
  }
}
