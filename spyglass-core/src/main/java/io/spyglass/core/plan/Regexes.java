package io.spyglass.core.plan;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * Compiles RLIKE's regular expressions on RE2/J with a bound on what compiling may cost.
 *
 * <p>RE2/J matches in time linear in the input whatever the pattern, but compiling expands counted
 * repetition: {@code ((a{1000}){1000}){1000}} is a program of 10^9 instructions, built in memory
 * before the first match. RE2/J checks each repetition count (at most 1,000) but not their product
 * and has no limit on a program's size (RE2's {@code max_mem}). So before compiling, the size of
 * the program a pattern would become is estimated from its text, without expanding anything, and a
 * pattern over {@link #MAX_INSTRUCTIONS} is refused. The estimate follows RE2's simplification:
 * {@code x{n,m}} is {@code m} copies of {@code x}, {@code x{n,}} is {@code n + 1}; it is an upper
 * bound for the patterns RE2/J accepts.
 */
public final class Regexes {
  /**
   * The most instructions a pattern may compile to: about 2 MB of program in RE2/J, generous for
   * real patterns ({@code [a-z]{1000}} is about 1,000; an e-mail address pattern a few hundred).
   */
  public static final long MAX_INSTRUCTIONS = 20_000;

  /**
   * A pattern refused before compiling: it would compile to more than {@link #MAX_INSTRUCTIONS}.
   */
  public static final class TooLarge extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final long instructions;

    TooLarge(String regex, long instructions) {
      super(
          "The regular expression '"
              + abbreviate(regex)
              + "' is too large: it would compile to about "
              + (instructions >= SATURATED
                  ? "more than a billion"
                  : String.format("%,d", instructions))
              + " instructions, at most "
              + String.format("%,d", MAX_INSTRUCTIONS));
      this.instructions = instructions;
    }

    /** The estimated size of the program. */
    public long instructions() {
      return instructions;
    }
  }

  private static final long SATURATED = 1L << 40;

  private Regexes() {}

  /**
   * Compiles {@code regex} after checking its estimated size.
   *
   * @throws TooLarge when it would compile to more than {@link #MAX_INSTRUCTIONS}
   * @throws PatternSyntaxException when RE2/J refuses it
   */
  public static Pattern compile(String regex) {
    long size = estimate(regex);
    if (size > MAX_INSTRUCTIONS) {
      throw new TooLarge(regex, size);
    }
    return Pattern.compile(regex);
  }

  /**
   * An upper bound of the number of instructions {@code regex} compiles to, saturating at 2^40; for
   * text RE2/J refuses, some number (compiling it then says why it is refused).
   */
  public static long estimate(String regex) {
    Estimator e = new Estimator(regex);
    long size = e.alternation();
    while (e.i < regex.length()) { // past an unmatched ')', which RE2/J refuses anyway
      e.i++;
      size = add(size, e.alternation());
    }
    return size;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  private static long add(long a, long b) {
    return Math.min(SATURATED, a + b);
  }

  private static long times(long a, long n) {
    if (n == 0 || a == 0) {
      return 0;
    }
    return a > SATURATED / n ? SATURATED : Math.min(SATURATED, a * n);
  }

  /** A recursive descent over RE2's syntax, computing sizes instead of building a tree. */
  private static final class Estimator {
    private final String s;
    private int i;

    Estimator(String s) {
      this.s = s;
    }

    /** {@code a|b|...} up to the end or the closing parenthesis of the current group. */
    long alternation() {
      long size = concatenation();
      while (i < s.length() && s.charAt(i) == '|') {
        i++;
        size = add(add(size, concatenation()), 1);
      }
      return size;
    }

    private long concatenation() {
      long size = 0;
      while (i < s.length() && s.charAt(i) != '|' && s.charAt(i) != ')') {
        size = add(size, quantified(atom()));
      }
      return size;
    }

    /**
     * An atom's size after the quantifiers that follow it, one after another ({@code x{2}{3}}):
     * {@code *}, {@code +} and {@code ?} add an instruction, a counted repetition multiplies.
     */
    private long quantified(long atom) {
      long size = atom;
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c == '*' || c == '+' || c == '?') {
          i++;
          size = add(size, 1);
        } else if (c == '{') {
          long copies = counted();
          if (copies < 0) {
            break; // a literal brace
          }
          size = add(times(size, copies), copies);
        } else {
          break;
        }
        if (i < s.length() && s.charAt(i) == '?') {
          i++; // non-greedy
        }
      }
      return size;
    }

    /**
     * Reads {@code {n}}, {@code {n,}} or {@code {n,m}} at {@code i}: the copies of the atom it
     * makes ({@code max(n, m)}, or {@code n + 1}); -1, reading nothing, when the brace is literal.
     */
    private long counted() {
      int j = i + 1;
      int n0 = j;
      while (j < s.length() && Character.isDigit(s.charAt(j))) {
        j++;
      }
      if (j == n0 || j - n0 > 9) {
        return -1;
      }
      long min = Long.parseLong(s.substring(n0, j));
      long copies = min;
      if (j < s.length() && s.charAt(j) == ',') {
        j++;
        int m0 = j;
        while (j < s.length() && Character.isDigit(s.charAt(j))) {
          j++;
        }
        if (j - m0 > 9) {
          return -1;
        }
        copies = j == m0 ? min + 1 : Math.max(min, Long.parseLong(s.substring(m0, j)));
      }
      if (j >= s.length() || s.charAt(j) != '}') {
        return -1;
      }
      i = j + 1;
      return copies;
    }

    private long atom() {
      char c = s.charAt(i);
      switch (c) {
        case '(' -> {
          return group();
        }
        case '[' -> {
          skipClass();
          return 1;
        }
        case '\\' -> {
          return escape();
        }
        default -> {
          i += Character.charCount(s.codePointAt(i));
          return 1;
        }
      }
    }

    /** {@code (...)}, {@code (?:...)}, {@code (?i:...)}, {@code (?P<name>...)}; {@code (?i)}. */
    private long group() {
      i++;
      if (i < s.length() && s.charAt(i) == '?') {
        int j = i + 1;
        while (j < s.length() && ":)>".indexOf(s.charAt(j)) < 0) {
          j++;
        }
        if (j < s.length() && s.charAt(j) == ')') {
          i = j + 1; // flags alone: no group
          return 0;
        }
        i = Math.min(s.length(), j + 1);
      }
      long inner = alternation();
      if (i < s.length() && s.charAt(i) == ')') {
        i++;
      }
      return add(inner, 2);
    }

    /** An escape: one instruction, or one a character of {@code \Q...\E}. */
    private long escape() {
      i++; // the backslash
      if (i >= s.length()) {
        return 1;
      }
      char c = s.charAt(i++);
      if ((c == 'p' || c == 'P' || c == 'x') && i < s.length() && s.charAt(i) == '{') {
        int close = s.indexOf('}', i);
        i = close < 0 ? s.length() : close + 1;
      } else if (c == 'Q') {
        int end = s.indexOf("\\E", i);
        int stop = end < 0 ? s.length() : end;
        long chars = Math.max(1, stop - i);
        i = end < 0 ? s.length() : end + 2;
        return chars;
      }
      return 1;
    }

    private void skipClass() {
      i++; // [
      if (i < s.length() && s.charAt(i) == '^') {
        i++;
      }
      if (i < s.length() && s.charAt(i) == ']') {
        i++;
      }
      while (i < s.length() && s.charAt(i) != ']') {
        if (s.charAt(i) == '\\') {
          i += 2;
        } else if (s.startsWith("[:", i)) {
          int close = s.indexOf(":]", i + 2);
          i = close < 0 ? i + 1 : close + 2;
        } else {
          i++;
        }
      }
      i = Math.min(s.length(), i + 1);
    }
  }
}
