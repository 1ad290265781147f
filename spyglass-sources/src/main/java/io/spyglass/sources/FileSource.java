package io.spyglass.sources;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.JsonRecordReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON lines ({@code file:PATH}, or standard input): one JSON object per line, from a file or any
 * input stream. Gzip input is recognised by its magic bytes, whatever the file's name. Blank lines
 * are skipped; a line longer than {@link Options#maxLineBytes()} is skipped without being held in
 * memory and counted in {@link #badInput()} with its line number (lines that are not JSON are
 * counted by the engine, which parses them). {@code \r\n} endings are accepted.
 *
 * <p>Without {@link Options#follow()}, the end of the input ends the source (a last line without a
 * newline is still read). With it, a file is read like {@code tail -f}: at its end, polls wait for
 * more and return nothing in the meantime; a partial last line waits for its newline; a file that
 * is truncated, or replaced by a new file at the same path (rotation), is read again from its
 * start, and a partial line left over from the old content is counted as truncated. Each rotation
 * is logged with the bytes read and skipped. A file replaced by a rename is read to its end first
 * (nothing is lost); a file truncated in place ({@code copytruncate}) loses the lines written
 * between the source's last read and the truncation, which cannot be read back (logged as a
 * warning; rotate by renaming to lose nothing), and a truncation followed by writes past the
 * position read before the source looked again goes unnoticed. Gzip files cannot be followed.
 *
 * <p>Reading a stream blocks in {@link InputStream#read} until data arrives, whatever the poll's
 * wait; a poll returns as soon as it has records and the stream has no more bytes available.
 *
 * <p>Polled from one thread; {@link #close()} closes the file or stream.
 */
public final class FileSource implements Source {
  private static final Logger LOG = LoggerFactory.getLogger(FileSource.class);

  /**
   * @param follow keep reading as the file grows (files only)
   * @param maxLineBytes longest line accepted, in bytes without the line ending; the engine reads
   *     records up to this size too
   * @param readBufferBytes size of each read
   */
  public record Options(boolean follow, int maxLineBytes, int readBufferBytes) {
    public static final int DEFAULT_MAX_LINE_BYTES =
        JsonRecordReader.Limits.DEFAULT_MAX_RECORD_BYTES;
    public static final Options DEFAULTS = new Options(false, DEFAULT_MAX_LINE_BYTES, 1 << 20);

    public Options {
      if (maxLineBytes < 1) {
        throw new IllegalArgumentException("maxLineBytes must be positive, not " + maxLineBytes);
      }
      if (readBufferBytes < 16) {
        throw new IllegalArgumentException("readBufferBytes must be >= 16, not " + readBufferBytes);
      }
    }

    public Options withFollow(boolean v) {
      return new Options(v, maxLineBytes, readBufferBytes);
    }

    public Options withMaxLineBytes(int v) {
      return new Options(follow, v, readBufferBytes);
    }

    public Options withReadBufferBytes(int v) {
      return new Options(follow, maxLineBytes, v);
    }
  }

  /** How long a following poll sleeps between looks at a file that has not grown. */
  private static final long FOLLOW_STEP_MS = 20;

  private final Options options;
  private final SpyglassClock clock;
  private final String description;
  private final Path path;
  private FileChannel channel;
  private Object fileKey;
  private InputStream stream;
  private boolean detected;

  private byte[] buf;
  private int start;
  private int scan;
  private int end;
  private boolean discarding;
  private boolean ended;
  private final BadInput badInput = new BadInput();
  private long lines;

  /** Lines seen in the current file, blank and skipped ones too: the number of the last one. */
  private long lineNumber;

  /**
   * Opens a file of JSON lines, plain or gzip.
   *
   * @throws NoSuchFileException when the file does not exist
   * @throws IOException when it cannot be read, or is gzip and {@code follow} is asked for
   */
  public FileSource(Path path, Options options) throws IOException {
    this(path, options, SpyglassClock.system());
  }

  /**
   * Opens a file of JSON lines, plain or gzip, whose polls wait on {@code clock}.
   *
   * @throws NoSuchFileException when the file does not exist
   * @throws IOException when it cannot be read, or is gzip and {@code follow} is asked for
   */
  public FileSource(Path path, Options options, SpyglassClock clock) throws IOException {
    this.options = Objects.requireNonNull(options);
    this.clock = Objects.requireNonNull(clock);
    this.path = path;
    this.description = "file:" + path;
    this.buf = new byte[options.readBufferBytes()];
    openFile();
  }

  /**
   * Reads JSON lines, plain or gzip, from a stream; it is closed with the source. Follow does not
   * apply: the stream's end ends the source.
   */
  public FileSource(InputStream in, String description, Options options) {
    this(in, description, options, SpyglassClock.system());
  }

  /** Reads JSON lines from a stream, as above, its polls waiting on {@code clock}. */
  public FileSource(InputStream in, String description, Options options, SpyglassClock clock) {
    this.options = Objects.requireNonNull(options);
    this.clock = Objects.requireNonNull(clock);
    this.path = null;
    this.description = description;
    this.stream = in;
    this.buf = new byte[options.readBufferBytes()];
  }

  private void openFile() throws IOException {
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    try {
      fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      ByteBuffer magic = ByteBuffer.allocate(2);
      int r = 0;
      while (magic.hasRemaining() && r >= 0) {
        r = ch.read(magic, magic.position());
      }
      if (magic.position() == 2 && isGzip(magic.get(0), magic.get(1))) {
        if (options.follow()) {
          throw new IOException("Cannot follow a gzip-compressed file: " + path);
        }
        stream = new GZIPInputStream(Files.newInputStream(path), 64 * 1024);
        ch.close();
      } else {
        channel = ch;
      }
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    detected = true;
  }

  private static boolean isGzip(byte b0, byte b1) {
    return b0 == (byte) 0x1f && b1 == (byte) 0x8b;
  }

  /** For a stream, the gzip check reads two bytes: done on the first poll, not on construction. */
  private void detectStream() throws IOException {
    PushbackInputStream in = new PushbackInputStream(stream, 2);
    byte[] magic = new byte[2];
    int n = 0;
    int r;
    while (n < 2 && (r = in.read(magic, n, 2 - n)) > 0) {
      n += r;
    }
    in.unread(magic, 0, n);
    stream = n == 2 && isGzip(magic[0], magic[1]) ? new GZIPInputStream(in, 64 * 1024) : in;
    detected = true;
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
      throws IOException, InterruptedException {
    if (ended) {
      return false;
    }
    if (!detected) {
      detectStream();
    }
    long deadline = clock.deadlineIn(maxWaitMs);
    int n = 0;
    while (n < maxRecords) {
      int nl = indexOfNewline(buf, scan, end);
      if (nl >= 0) {
        lineNumber++;
        if (discarding) {
          discarding = false;
          tooLong();
        } else if (line(batch, start, nl)) {
          n++;
        }
        start = nl + 1;
        scan = start;
        continue;
      }
      scan = end;
      if (!discarding && end - start > options.maxLineBytes()) {
        discarding = true;
      }
      if (discarding) {
        start = end;
        scan = end;
      }
      if (n > 0 && stream != null && stream.available() <= 0) {
        break;
      }
      makeRoom();
      int r = read(buf, end, buf.length - end);
      if (r > 0) {
        end += r;
        continue;
      }
      if (r == 0) {
        // A stream may return 0 only for a 0-byte request; a file channel at a lock boundary.
        continue;
      }
      if (!options.follow() || channel == null) {
        if (discarding || end > start) {
          lineNumber++;
        }
        if (discarding) {
          tooLong();
        } else if (end > start && line(batch, start, end)) {
          n++;
        }
        start = end;
        scan = end;
        ended = true;
        closeInput();
        return n > 0;
      }
      if (reopenIfRotated()) {
        continue;
      }
      long left = deadline - clock.nanos();
      if (n > 0 || left <= 0) {
        break;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(FOLLOW_STEP_MS)));
    }
    return true;
  }

  /** Adds a line unless it is blank or too long; returns whether it was added. */
  private boolean line(RawBatch batch, int from, int to) {
    if (to > from && buf[to - 1] == '\r') {
      to--;
    }
    if (to - from > options.maxLineBytes()) {
      tooLong();
      return false;
    }
    int i = from;
    while (i < to && isBlank(buf[i])) {
      i++;
    }
    if (i == to) {
      return false;
    }
    batch.addLine(buf, from, to - from, lineNumber);
    lines++;
    return true;
  }

  private void tooLong() {
    badInput.add(BadRecord.TOO_LONG, "line " + lineNumber);
  }

  private static boolean isBlank(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The first line feed in {@code b[from, to)}, or -1; eight bytes at a time. */
  private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;

  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  static int indexOfNewline(byte[] b, int from, int to) {
    int i = from;
    // sixteen bytes a turn: two words tested, one branch for both
    for (; i + 16 <= to; i += 16) {
      long x = (long) LONGS.get(b, i) ^ NEWLINES;
      long y = (long) LONGS.get(b, i + 8) ^ NEWLINES;
      // the high bit of each zero byte; only the lowest is exact, and only it is used
      long zx = (x - ONES) & ~x & HIGHS;
      long zy = (y - ONES) & ~y & HIGHS;
      if ((zx | zy) != 0) {
        return zx != 0
            ? i + (Long.numberOfTrailingZeros(zx) >>> 3)
            : i + 8 + (Long.numberOfTrailingZeros(zy) >>> 3);
      }
    }
    for (; i + 8 <= to; i += 8) {
      long x = (long) LONGS.get(b, i) ^ NEWLINES;
      long zeros = (x - ONES) & ~x & HIGHS;
      if (zeros != 0) {
        return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Moves the unread bytes to the front, and grows the buffer when a long line fills it. */
  private void makeRoom() {
    if (start > 0) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      scan -= start;
      start = 0;
    }
    if (end == buf.length) {
      buf = Arrays.copyOf(buf, buf.length * 2);
    }
  }

  private int read(byte[] b, int off, int len) throws IOException {
    if (channel != null) {
      return channel.read(ByteBuffer.wrap(b, off, len));
    }
    return stream.read(b, off, len);
  }

  /**
   * At the end of a followed file: whether it was truncated or replaced, in which case reading
   * starts again at the beginning of the (new) file (a replaced file is first read to its end).
   */
  private boolean reopenIfRotated() throws IOException {
    BasicFileAttributes now;
    try {
      now = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      return false; // between a rename and the new file's creation
    }
    boolean replaced = !Objects.equals(now.fileKey(), fileKey);
    long read = channel.position();
    if (replaced && channel.size() > read) {
      return true; // written to after it was renamed: its last lines are read before moving on
    }
    boolean truncated = !replaced && now.size() < read;
    if (!replaced && !truncated) {
      return false;
    }
    String partial = "";
    if (discarding || end > start) {
      badInput.add(BadRecord.TRUNCATED, "line " + (lineNumber + 1) + " before rotation");
      partial =
          "; its unfinished last line"
              + (discarding ? "" : " (" + (end - start) + " bytes)")
              + " is skipped, counted as truncated";
    }
    if (replaced) {
      LOG.info(
          "{} was replaced (rotated): the old file was read to its end ({} bytes){}; reading the"
              + " new one from its start",
          description,
          read,
          partial);
    } else {
      LOG.warn(
          "{} was truncated in place (copytruncate?) to {} bytes after {} bytes were read: reading"
              + " it again from its start; lines written after byte {} before the truncation, if"
              + " any, were never read and are lost (rotate by renaming the file to lose"
              + " nothing){}",
          description,
          now.size(),
          read,
          read,
          partial);
    }
    rotations++;
    discarding = false;
    lineNumber = 0;
    start = 0;
    scan = 0;
    end = 0;
    if (replaced) {
      channel.close();
      channel = null;
      openFile();
    } else {
      channel.position(0);
    }
    return true;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public BadInput.Snapshot badInput() {
    return badInput.snapshot();
  }

  @Override
  public int maxRecordBytes() {
    return options.maxLineBytes();
  }

  /** How many times a followed file was found rotated or truncated. */
  public long rotations() {
    return rotations;
  }

  private long rotations;

  /** Lines read so far, blank and skipped lines not counted. */
  public long lines() {
    return lines;
  }

  @Override
  public void close() throws IOException {
    ended = true;
    closeInput();
  }

  private void closeInput() throws IOException {
    try {
      if (channel != null) {
        channel.close();
      }
    } finally {
      if (stream != null) {
        stream.close();
      }
    }
  }
}
