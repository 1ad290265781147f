package io.spyglass.core.record;

import java.util.Arrays;

/**
 * The names of the records scanned before, to guess each name of the next record instead of
 * searching for its end: the records of a stream mostly hold the same fields in the same order. A
 * search finds a name's end only after testing its bytes, and a top-level name's slot in the field
 * table by a look-up; a guess is checked with two or three words compared at once (the comma before
 * the name, the quoted name and its colon), the place of the value known before the check is done,
 * and gives the slot. Each name learned (of at most {@value #MAX_LENGTH} bytes, written without
 * escapes) gets an id; the memo keeps, per name, the name that followed it last in its object, and
 * per name whose value is an object (or an array of objects), the first name in it. A record's
 * first name is guessed from the first name of the record before.
 *
 * <p>A guess is taken only when the bytes are exactly a member's start as compact JSON writes it:
 * the comma that ends the member before, the quoted name and a colon ({@code ,"name":}), or for the
 * first member of an object, the same bytes after the brace (or whitespace), which is not compared.
 * A learned name is one the scan found valid, under the same limits (the memo is cleared when they
 * change), so those bytes are what the search would have found and checked; otherwise the scan
 * searches. Whether a record is valid, and what is read from it, never depends on what the memo
 * holds. The scan compares the words itself ({@link JsonWalk#object}): {@link #cells} and {@link
 * #slots} are its to read. A name's words, their masks and its two guesses lie in one cache line of
 * one array ({@value #STRIDE} longs an id), each guess with the length of the name guessed: a guess
 * costs one load for the id and length of the name guessed, then its words, and the loops that read
 * them hold one array, not three.
 *
 * <p>Records whose names do not repeat (maps keyed by identifiers, say) would only pay for guesses
 * that fail and names learned for nothing: when records keep missing, the memo stands aside for a
 * while ({@link #begin}).
 *
 * <p>Not thread-safe.
 */
final class NameMemo {
  /** The longest name learned, in bytes: with the comma before it, quoted, and its colon, 24. */
  static final int MAX_LENGTH = 20;

  /** The bytes a guess reads: three words from the comma before the name. */
  static final int WINDOW = 24;

  /** At most this many names are learned; the ones after are searched for. */
  static final int CAPACITY = 512;

  /**
   * Ids that are no name: the record's own object, whose first name is the record's first; a name
   * not learned; and any name while the memo stands aside, after which nothing is guessed.
   */
  static final int ROOT = 0, UNKNOWN = 1, ASIDE = 2;

  /** The first id of a name. */
  private static final int NAMES = 3;

  /** Records of more names not guessed than this are missed. */
  private static final int MISSES_PER_RECORD = 16;

  /** After this many missed records in a row, the memo stands aside... */
  private static final int MISSED_RECORDS = 8;

  /** ...for this many records, then tries again. */
  private static final int ASIDE_RECORDS = 256;

  /** Longs per id in {@link #cells}: a 64-byte line. */
  static final int STRIDE = 8;

  /**
   * Per id, from {@code STRIDE * id}: a comma, the quoted name and its colon, as three words each
   * followed by its mask (0 to 5); then the guesses (6 and 7, see {@link #after} and {@link
   * #firstOf}): a guessed name's id in the low half, the length of its comma, quoted name and colon
   * in the high half; -1 when there is no guess.
   */
  final long[] cells = new long[STRIDE * CAPACITY];

  /** Per id: the length of the comma, the quoted name and its colon. */
  private final int[] lengths = new int[CAPACITY];

  /** Per id: the slot of the name in the scanner's field table, or -1. */
  final int[] slots = new int[CAPACITY];

  /** Ids + 1 by hash of the name's words, open addressing; 0 is empty. */
  private final int[] table = new int[4 * CAPACITY];

  private int size;

  /** Names searched for in the record being scanned, and missed records in a row. */
  private int misses;

  private int missedRecords;

  /** Records still to scan without the memo. */
  private int aside;

  NameMemo() {
    clear();
  }

  /** Forgets every name (when the limits change). */
  void clear() {
    for (int id = 0; id < CAPACITY; id++) {
      cells[STRIDE * id + 6] = -1;
      cells[STRIDE * id + 7] = -1;
    }
    Arrays.fill(table, 0);
    Arrays.fill(slots, -1);
    size = NAMES;
    misses = 0;
    missedRecords = 0;
    aside = 0;
  }

  /** Takes the slots of the names from this table from now on. */
  void fields(FieldTable fields) {
    for (int id = NAMES; id < size; id++) {
      slots[id] = fieldSlot(fields, id);
    }
  }

  /**
   * Starts a record: the id whose first name is guessed as its first ({@link #ROOT}), or {@link
   * #ASIDE} when the memo stands aside for it (nothing guessed, nothing learned).
   */
  int begin() {
    if (aside > 0) {
      aside--;
      return ASIDE;
    }
    if (misses > MISSES_PER_RECORD) {
      if (++missedRecords == MISSED_RECORDS) {
        missedRecords = 0;
        aside = ASIDE_RECORDS;
      }
    } else {
      missedRecords = 0;
    }
    misses = 0;
    return aside > 0 ? ASIDE : ROOT;
  }

  /**
   * The cell of the guess for the first name of the objects in the value of the name {@code id}.
   */
  static int firstOf(int id) {
    return STRIDE * id + 7;
  }

  /** The cell of the guess for the name after the name {@code id} in its object. */
  static int after(int id) {
    return STRIDE * id + 6;
  }

  /** The id of the name a guess read from a cell names; negative when there is no guess. */
  static int guessed(long guess) {
    return (int) guess;
  }

  /** The length of the comma, the quoted name and the colon of a guess read from a cell. */
  static int guessedLength(long guess) {
    return (int) (guess >>> 32);
  }

  /** Whether {@code id} is a name learned, whose {@link #slot} is known. */
  static boolean known(int id) {
    return id >= NAMES;
  }

  /** The slot in the field table of the name {@code id}, or -1 (always when it is not known). */
  int slot(int id) {
    return slots[id];
  }

  /**
   * The id of the valid name {@code b[from, to)} that a search found, in the memo or learned now,
   * or {@link #UNKNOWN} when it is written with escapes, is too long, or the memo is full or stands
   * aside; and remembered as the guess of the cell {@code at} ({@link #after} or {@link #firstOf}
   * an id).
   */
  int learn(byte[] b, int from, int to, boolean escaped, int at, FieldTable fields) {
    if (at / STRIDE == ASIDE) {
      return ASIDE;
    }
    misses++;
    int id = escaped ? UNKNOWN : find(b, from, to, fields);
    cells[at] = id == UNKNOWN ? -1 : id | (long) lengths[id] << 32;
    return id;
  }

  private int find(byte[] b, int from, int to, FieldTable fields) {
    int len = to - from;
    if (len > MAX_LENGTH) {
      return UNKNOWN;
    }
    // a comma, the quoted name and its colon, as the scan compares them
    int n = len + 4;
    long w0 = 0;
    long w1 = 0;
    long w2 = 0;
    int at = from - 2; // where the comma is, or the brace or a space
    if (at >= 0 && at + WINDOW <= b.length) {
      // the bytes as they are (a quote before and after the name), the comma and colon put in
      w0 = (Swar.word(b, at) & ~0xFFL | ',') & mask(n);
      w1 = Swar.word(b, at + 8) & mask(n - 8);
      w2 = Swar.word(b, at + 16) & mask(n - 16);
      int colon = n - 1;
      long c = (long) ':' << (8 * (colon & 7));
      long clear = ~(0xFFL << (8 * (colon & 7)));
      if (colon < 8) {
        w0 = w0 & clear | c;
      } else if (colon < 16) {
        w1 = w1 & clear | c;
      } else {
        w2 = w2 & clear | c;
      }
    } else {
      for (int k = 0; k < n; k++) {
        long c =
            k == 0 ? ',' : k == 1 || k == n - 2 ? '"' : k == n - 1 ? ':' : b[from + k - 2] & 0xFFL;
        if (k < 8) {
          w0 |= c << (8 * k);
        } else if (k < 16) {
          w1 |= c << (8 * (k - 8));
        } else {
          w2 |= c << (8 * (k - 16));
        }
      }
    }
    int mask = table.length - 1;
    int h = hash(w0, w1, w2) & mask;
    while (true) {
      int id = table[h] - 1;
      if (id < 0) {
        break;
      }
      int i = STRIDE * id;
      if (lengths[id] == n && cells[i] == w0 && cells[i + 2] == w1 && cells[i + 4] == w2) {
        return id;
      }
      h = (h + 1) & mask;
    }
    if (size == CAPACITY) {
      return UNKNOWN;
    }
    int id = size++;
    table[h] = id + 1;
    lengths[id] = n;
    int i = STRIDE * id;
    cells[i] = w0;
    cells[i + 1] = mask(n);
    cells[i + 2] = w1;
    cells[i + 3] = mask(n - 8);
    cells[i + 4] = w2;
    cells[i + 5] = mask(n - 16);
    slots[id] = fieldSlot(fields, id);
    return id;
  }

  /** A word's mask for its first {@code n} bytes (none when n <= 0, all when n >= 8). */
  private static long mask(int n) {
    return n <= 0 ? 0 : n >= 8 ? -1L : -1L >>> (64 - 8 * n);
  }

  private int fieldSlot(FieldTable fields, int id) {
    int len = lengths[id] - 4;
    byte[] name = new byte[len];
    for (int k = 0; k < len; k++) {
      int at = k + 2; // after the comma and the opening quote
      name[k] = (byte) (cells[STRIDE * id + 2 * (at >> 3)] >>> (8 * (at & 7)));
    }
    return fields.slot(name, 0, len);
  }

  private static int hash(long w0, long w1, long w2) {
    long h = (w0 * 0x9E3779B97F4A7C15L) ^ (w1 * 0xC2B2AE3D27D4EB4FL) ^ (w2 * 0x165667B19E3779F9L);
    return (int) (h ^ (h >>> 29));
  }
}
