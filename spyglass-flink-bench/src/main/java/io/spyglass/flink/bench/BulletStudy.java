package io.spyglass.flink.bench;

import java.util.List;

/**
 * Bullet's tests 1 to 6 as published in "Tuning and Performance of Bullet in Storm" (Bullet-Storm
 * 0.4.2 and 0.4.3 on Storm 1.0, on a multi-tenant cluster of 2 x E5-2680v3 machines, records read
 * from Kafka 0.9 in 64 partitions for tests 1 to 4, from Kafka 0.10 in 256 partitions from test 5):
 * what each test ran, and what it gave.
 */
final class BulletStudy {
  /** Records of tests 1 to 4: "the average, uncompressed record size was about 1.8 KiB". */
  static final int SMALL_BYTES = 1843;

  /**
   * Records of tests 5 and 6, read from a larger topic: test 6's 4,024 MiB/s over 1,004,500
   * records/s, about 4.1 KiB each.
   */
  static final int LARGE_BYTES = 4200;

  /** Tests 1 and 2 ran 100 queries each. */
  static final int LIVE_QUERIES = 100;

  /**
   * The data volume of test 2 (76,000 records/s): the background stream of tests 1 and 2 (test 1
   * gives none).
   */
  static final long LIVE_RATE = 76_000;

  /** Test 1, delays relative to the query received at the Join bolt (ms, mean of 100 queries). */
  static final double T1_KAFKA_RECEIVED_MS = -710.75;

  static final double T1_FILTERED_MS = -2.16;
  static final double T1_FINISHED_MS = 1.66;

  /** Test 2, delays relative to the query received (ms, mean of 100 queries over 30 minutes). */
  static final double T2_KAFKA_RECEIVED_MS = 445.7;

  static final double T2_BULLET_RECEIVED_MS = 996.5;
  static final double T2_FILTERED_MS = 1003.3;
  static final double T2_FINISHED_MS = 1006.8;

  /** Test 2's conclusion: from the record seen in the DataSource spout to the query finished. */
  static final double T2_READ_TO_FINISHED_MS = 10.3;

  /**
   * A test that ran N simultaneous copies of one RAW query, {@code id == '...'} with a LIMIT of 10,
   * over a stream of {@code rate} records/s on {@code cores}.
   *
   * @param test its number
   * @param title what it measured
   * @param queries the simultaneous queries it ran
   * @param rate records/s read meanwhile
   * @param recordBytes their size
   * @param cores the cores of the whole topology
   * @param figure the published result, in words
   */
  record Throughput(
      int test,
      String title,
      int queries,
      long rate,
      int recordBytes,
      double cores,
      String figure) {}

  static final List<Throughput> THROUGHPUT =
      List.of(
          new Throughput(
              3,
              "most RAW queries",
              200,
              85_000,
              SMALL_BYTES,
              219.5,
              "200 RAW queries ran at 85,000 records/s of 1.8 KiB on 219.5 cores; 300 lost"
                  + " records"),
          new Throughput(
              4,
              "most RAW queries, larger heaps",
              735,
              84_000,
              SMALL_BYTES,
              219.5,
              "735 RAW queries (Storm DRPC's limit) at 84,000 records/s on 219.5 cores"),
          new Throughput(
              5,
              "reading more data",
              680,
              756_000,
              LARGE_BYTES,
              1_179.8,
              "680 RAW queries (the DRPC limit) at 756,000 records/s, 3,080 MB/s, on 1,179.8"
                  + " cores"),
          new Throughput(
              6,
              "scaling for more data",
              400,
              1_004_500,
              LARGE_BYTES,
              1_189.4,
              "400 RAW queries at 1,004,500 records/s, 4,024 MiB/s, on 1,189.4 cores; mean read"
                  + " to filtered < 200 ms"));

  /** A data volume of test 6 and the cores Bullet used for it, with 400 RAW queries. */
  record Volume(long recordsPerSecond, int mibPerSecond, double cores) {}

  static final List<Volume> TEST_6 =
      List.of(
          new Volume(69_700, 307, 98.3),
          new Volume(216_825, 920, 242.7),
          new Volume(374_370, 1_535, 531.5),
          new Volume(524_266, 2_149, 812.3),
          new Volume(724_390, 3_070, 997.1),
          new Volume(1_004_500, 4_024, 1_189.4));

  private BulletStudy() {}
}
