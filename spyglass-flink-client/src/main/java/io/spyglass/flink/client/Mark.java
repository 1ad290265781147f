package io.spyglass.flink.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A mark in a records topic, in place of a record: a Kafka record with the header {@value #HEADER}
 * and a small JSON value. Write each mark to every partition of the topic.
 *
 * <pre>
 * {"v": 1, "time": 1700000001000}             clock: the time is now this (job clock MARKS)
 * {"v": 1, "sync": 7, "partitions": 4}        sync: reply SYNCED 7 to every running query once
 *                                             the records before it in all 4 partitions reached it
 * {"v": 1, "sync": 8, "partitions": 4,        tick: a sync that is also a tick of the clock at its
 *  "tick": true}                              time: event-time windows close as when time moves
 * </pre>
 *
 * With the job's clock set to {@code MARKS}, a record's time is its Kafka timestamp (whoever
 * replays records sets it) and time moves only by clock marks: a clock mark says that the records
 * after it in its partition are at least that late. Windows close and queries end when every
 * partition has passed the mark of their time, and a query sees the records of its receive time and
 * later, so a replay gives the same results however fast it runs and however its partitions
 * interleave. Sync marks work with either clock.
 *
 * <p>Event-time windows close on a tick after the largest event time seen passed their end (plus
 * their lateness): when time moves on, or at a tick mark. A tick mark is how a replay says "the
 * clock ticks" without time passing, as the embedded engine's tick does.
 *
 * @param timeMs for a clock mark, epoch ms; -1 for a sync mark
 * @param sync for a sync mark, its number; -1 for a clock mark
 * @param partitions for a sync mark, how many partitions carry it
 * @param tick for a sync mark, whether it is also a tick of the clock
 */
public record Mark(long timeMs, long sync, int partitions, boolean tick) {
  /** The Kafka header that makes a record a mark. */
  public static final String HEADER = "spyglass-mark";

  private static final JsonFactory JSON = new JsonFactory();

  public static Mark clock(long timeMs) {
    return new Mark(timeMs, -1, 0, false);
  }

  public static Mark sync(long sync, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("a sync mark goes to at least one partition");
    }
    return new Mark(-1, sync, partitions, false);
  }

  /** A sync mark that is also a tick of the clock: see the class comment. */
  public static Mark tick(long sync, int partitions) {
    Mark m = sync(sync, partitions);
    return new Mark(m.timeMs, m.sync, m.partitions, true);
  }

  public boolean isClock() {
    return sync < 0;
  }

  public byte[] toJson() {
    String s =
        isClock()
            ? "{\"v\":1,\"time\":" + timeMs + "}"
            : "{\"v\":1,\"sync\":"
                + sync
                + ",\"partitions\":"
                + partitions
                + (tick ? ",\"tick\":true}" : "}");
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws MessageFormatException when the value is not a mark of version 1
   */
  public static Mark parse(byte[] json) {
    long time = -1;
    long sync = -1;
    int partitions = 0;
    boolean tick = false;
    int version = -1;
    try (JsonParser p = JSON.createParser(json == null ? new byte[0] : json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MessageFormatException("a mark is a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        if (name.equals("tick")) {
          tick = t == JsonToken.VALUE_TRUE;
          p.skipChildren();
          continue;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
          p.skipChildren();
          continue;
        }
        switch (name) {
          case "v" -> version = p.getIntValue();
          case "time" -> time = p.getLongValue();
          case "sync" -> sync = p.getLongValue();
          case "partitions" -> partitions = p.getIntValue();
          default -> {}
        }
      }
    } catch (IOException e) {
      throw new MessageFormatException("a mark is not valid JSON: " + e.getMessage(), e);
    }
    if (version != 1) {
      throw new MessageFormatException("mark version " + version + " is not supported");
    }
    if ((time < 0) == (sync < 0) || (sync >= 0 && partitions < 1)) {
      throw new MessageFormatException("a mark has either a time, or a sync number and partitions");
    }
    if (tick && sync < 0) {
      throw new MessageFormatException("a tick mark is a sync mark: it has a sync number");
    }
    return new Mark(time, sync, partitions, tick);
  }
}
