package io.spyglass.bench;

/**
 * The record shapes the benchmarks run on. Both share the fields the benchmark queries read ({@code
 * id}, {@code device}, {@code browser_name}, {@code os_name}, {@code event_type}, {@code
 * ip_address}, {@code duration}, {@code timespent} and the map {@code demographics} with {@code
 * country} and {@code age}), so one query text runs on either.
 */
public enum Shape {
  /**
   * 20 mixed top-level fields (strings, longs, doubles, booleans, a small map, a small list), about
   * 1.2 KB of JSON: the shape Bullet's core was measured on.
   */
  REFERENCE,
  /**
   * The shape of Bullet's performance study: about 1.75 KiB of JSON, 29 top-level and 92 fields in
   * all, most of them in nested maps and a list of maps.
   */
  BULLET
}
