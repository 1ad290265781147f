package io.spyglass.core.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Strings that hold unpaired surrogates: UTF-16 code units that are not characters, which a record
 * gets from an escape of one (valid JSON, if not valid Unicode). Java keeps them in a string, but
 * its UTF-8 encoder writes each as {@code ?}: whoever writes strings out writes these ones as
 * escapes (JSON) or in generalised UTF-8 (the partials' binary format, where an unpaired surrogate
 * takes the three bytes its code point would), so that they are read back as they were.
 */
public final class Surrogates {
  private Surrogates() {}

  /** The index of the first unpaired surrogate of {@code s}, or -1 when every one is paired. */
  public static int firstUnpaired(CharSequence s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }

  /** Whether {@code s[i]} is a surrogate without its pair. */
  public static boolean isUnpaired(CharSequence s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    return Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
  }

  /**
   * {@code s} in UTF-8, each unpaired surrogate in the three bytes its code point would take
   * (generalised UTF-8, as WTF-8 writes them): the same bytes as UTF-8 for every other string.
   */
  public static byte[] encode(String s) {
    if (firstUnpaired(s) < 0) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    byte[] out = new byte[3 * s.length()];
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        out[n++] = (byte) c;
      } else if (c < 0x800) {
        out[n++] = (byte) (0xC0 | c >> 6);
        out[n++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        out[n++] = (byte) (0xF0 | cp >> 18);
        out[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        out[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        out[n++] = (byte) (0x80 | (cp & 0x3F));
      } else {
        out[n++] = (byte) (0xE0 | c >> 12); // any other unit, an unpaired surrogate included
        out[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        out[n++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * Decodes {@code b[off, off + len)} written by {@link #encode}: UTF-8 in which a surrogate's
   * three bytes give that code unit. Other bytes that are not UTF-8 give U+FFFD, as Java's decoder
   * gives them.
   */
  public static String decode(byte[] b, int off, int len) {
    int end = off + len;
    boolean surrogates = false;
    for (int i = off; i + 1 < end; i++) {
      if (b[i] == (byte) 0xED && (b[i + 1] & 0xE0) == 0xA0) {
        surrogates = true;
        break;
      }
    }
    if (!surrogates) {
      return new String(b, off, len, StandardCharsets.UTF_8);
    }
    StringBuilder out = new StringBuilder(len);
    int run = off;
    int i = off;
    while (i < end) {
      if (b[i] == (byte) 0xED
          && i + 2 < end
          && (b[i + 1] & 0xE0) == 0xA0
          && (b[i + 2] & 0xC0) == 0x80) {
        out.append(new String(b, run, i - run, StandardCharsets.UTF_8));
        out.append((char) (0xD000 | (b[i + 1] & 0x3F) << 6 | (b[i + 2] & 0x3F)));
        i += 3;
        run = i;
      } else {
        i++;
      }
    }
    return out.append(new String(b, run, end - run, StandardCharsets.UTF_8)).toString();
  }
}
