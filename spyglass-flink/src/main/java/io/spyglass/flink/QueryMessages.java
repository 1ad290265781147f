package io.spyglass.flink;

import io.spyglass.core.partial.PartialFormatException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The query messages (JSON) the job keeps in its state, packed: a byte {@link #PACKED}, then the
 * JSON compressed with Deflate (no header) over a fixed dictionary of what every query message says
 * (its field names, the default limits' names and values, common BQL). A query message with its
 * limits is about 550 bytes of JSON, mostly the same in every query; packed, about a sixth. A
 * stored message that starts with '{' is JSON as written before packing, and is read as such.
 *
 * <p>The dictionary is part of the format: changing it makes a new format (another first byte), and
 * the old one must still be read.
 */
final class QueryMessages {
  private QueryMessages() {}

  /** The first byte of a packed message (JSON starts with '{'). */
  static final byte PACKED = 1;

  /**
   * What query messages share, for Deflate to refer to; the most common last (nearest). Never
   * changed: see the class comment.
   */
  private static final byte[] DICTIONARY =
      ("SELECT COUNT(*), SUM(, AVG(, MIN(, MAX(, COUNT DISTINCT(, QUANTILE(, TOP( FROM STREAM("
              + " GROUP BY  WINDOWING EVERY(, TIME, FIRST, ALL, RECORD) ORDER BY  AS  AND  OR  NOT "
              + " WHERE  LIMIT 1000 IS NOT NULL, \"type\":\"kill\", \"type\":\"finish\","
              + " \"type\":\"ended\",\"progress\":true,\"sinks\":{\"query\":\"\",\"kafka\":[\"\"]},"
              + "\"limits\":{\"defaultDurationMs\":30000,\"maxDurationMs\":86400000,"
              + "\"defaultRawLimit\":100,\"maxRawLimit\":10000,\"maxGroups\":512,"
              + "\"maxExactGroups\":1000000,\"countDistinctEntries\":16384,"
              + "\"distributionEntries\":1024,\"maxDistributionPoints\":100,\"topKEntries\":1024,"
              + "\"maxTopK\":1000,\"minWindowEmitMs\":100,\"maxQueryLength\":65536,"
              + "\"maxEmitsPerSecond\":500}}"
              + "{\"v\":1,\"type\":\"query\",\"id\":\"\",\"bql\":\"SELECT * FROM STREAM(MAX,"
              + " TIME) WHERE id = '' LIMIT 10\",\"receiveTime\":17,\"replyTo\":\"spyglass-replies-\","
              + "\"instance\":\"\",\"limits\":{\"defaultDurationMs\":30000,"
              + "\"maxDurationMs\":86400000,\"defaultRawLimit\":100,\"maxRawLimit\":10000,"
              + "\"maxGroups\":512,\"maxExactGroups\":1000000,\"countDistinctEntries\":16384,"
              + "\"distributionEntries\":1024,\"maxDistributionPoints\":100,\"topKEntries\":1024,"
              + "\"maxTopK\":1000,\"minWindowEmitMs\":100,\"maxQueryLength\":65536,"
              + "\"maxEmitsPerSecond\":500}}")
          .getBytes(StandardCharsets.UTF_8);

  /** The largest message unpacked: the job refuses larger ones long before. */
  private static final int MAX_JSON = 16 << 20;

  /** {@code json} packed (a packer of its own: see {@link Packer} to pack many). */
  static byte[] pack(byte[] json) {
    Packer p = new Packer();
    try {
      return p.pack(json);
    } finally {
      p.close();
    }
  }

  /** Packs messages one after the other with one compressor (not thread-safe). */
  static final class Packer implements AutoCloseable {
    private final Deflater d = new Deflater(Deflater.BEST_SPEED, true);
    private byte[] buf = new byte[1024];

    byte[] pack(byte[] json) {
      d.reset();
      d.setDictionary(DICTIONARY);
      d.setInput(json);
      d.finish();
      if (buf.length < json.length + 64) {
        buf = new byte[json.length + 64];
      }
      ByteArrayOutputStream out = null;
      int n = 0;
      while (!d.finished()) {
        if (n == buf.length) {
          out = out == null ? new ByteArrayOutputStream(2 * n) : out;
          out.write(buf, 0, n);
          n = 0;
        }
        n += d.deflate(buf, n, buf.length - n);
      }
      byte[] packed;
      if (out == null) {
        packed = new byte[1 + n];
        System.arraycopy(buf, 0, packed, 1, n);
      } else {
        out.write(buf, 0, n);
        byte[] body = out.toByteArray();
        packed = new byte[1 + body.length];
        System.arraycopy(body, 0, packed, 1, body.length);
      }
      packed[0] = PACKED;
      return packed;
    }

    @Override
    public void close() {
      d.end();
    }
  }

  /** The JSON of a stored message: packed by {@link #pack}, or JSON as written before. */
  static byte[] unpack(byte[] stored) {
    if (stored.length == 0 || stored[0] != PACKED) {
      return stored;
    }
    Inflater in = new Inflater(true);
    try {
      in.setDictionary(DICTIONARY);
      // raw Deflate wants one byte more than its data ("nowrap"): the copy's last byte
      in.setInput(Arrays.copyOfRange(stored, 1, stored.length + 1));
      ByteArrayOutputStream out = new ByteArrayOutputStream(stored.length * 5);
      byte[] buf = new byte[Math.max(256, stored.length * 5)];
      while (!in.finished()) {
        int n = in.inflate(buf);
        if (n == 0 && (in.needsInput() || in.needsDictionary())) {
          throw new PartialFormatException("a stored query message ends early");
        }
        out.write(buf, 0, n);
        if (out.size() > MAX_JSON) {
          throw new PartialFormatException("a stored query message is larger than 16 MiB");
        }
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw new PartialFormatException("a stored query message cannot be unpacked: " + e);
    } finally {
      in.end();
    }
  }
}
