package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.isNum;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.DOUBLE;
import static io.spyglass.core.record.Record.FLOAT;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.record.Record;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.function.LongSupplier;

/** HASH, and the functions of time: NOW and UNIXTIMESTAMP. */
final class Functions {
  private Functions() {}

  /**
   * {@code HASH(x)}: Java's {@code hashCode} of the value, as Bullet computes it: a LONG hashes as
   * {@link Long#hashCode(long)}, a STRING as {@link String#hashCode()}, TRUE as 1231, NULL as 0.
   */
  static final class Hash extends Eval {
    final Eval a;

    Hash(Eval a) {
      this.a = a;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      l =
          switch (k) {
            case NULL -> 0; // as Bullet, and as Objects.hashCode(null)
            case BOOLEAN -> Boolean.hashCode(a.l != 0);
            case INTEGER -> Integer.hashCode((int) a.l);
            case LONG -> Long.hashCode(a.l);
            case FLOAT -> Float.hashCode((float) a.d);
            case DOUBLE -> Double.hashCode(a.d);
            default -> a.o.hashCode();
          };
      return INTEGER;
    }
  }

  /**
   * {@code NOW} (epoch milliseconds) and {@code UNIXTIMESTAMP()} (epoch seconds, as in Bullet): the
   * engine clock, read at each evaluation.
   */
  static final class Clock extends Eval {
    final LongSupplier clock;
    final long divisor;

    Clock(LongSupplier clock, long divisor) {
      this.clock = clock;
      this.divisor = divisor;
    }

    @Override
    public int eval(Record r) {
      l = Math.floorDiv(clock.getAsLong(), divisor);
      return LONG;
    }
  }

  /**
   * {@code UNIXTIMESTAMP(time[, pattern])} in epoch seconds (UTC), as in Bullet: without a pattern
   * the text is {@code yyyy-MM-dd HH:mm:ss[.f...]}; with one, a number is read as its digits.
   */
  static final class UnixTimestamp extends Node {
    /** The text of a timestamp without pattern, as Bullet reads it with {@code Timestamp}. */
    static final DateTimeFormatter TIMESTAMP =
        new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
            .optionalEnd()
            .toFormatter();

    final Eval value;
    final DateTimeFormatter formatter;

    UnixTimestamp(Eval value, DateTimeFormatter formatter, EvalStats stats) {
      super(stats);
      this.value = value;
      this.formatter = formatter;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      if (k == NULL) {
        return NULL;
      }
      String s;
      if (isNum(k) && formatter != null) {
        s = Long.toString((long) value.asDouble(k));
      } else if (k == STRING) {
        s = (String) value.o;
      } else {
        return fail();
      }
      try {
        l =
            LocalDateTime.from((formatter == null ? TIMESTAMP : formatter).parse(s))
                .toEpochSecond(ZoneOffset.UTC);
        return LONG;
      } catch (RuntimeException e) {
        return fail();
      }
    }
  }
}
