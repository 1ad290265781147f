package io.spyglass.service.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.service.runtime.RuntimeStats;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SchemaSamplerTest {
  /** A runtime that runs nothing: the sampler only registers with it. */
  static final class NoRuntime implements QueryRuntime {
    @Override
    public void submit(String id, CheckedQuery query, ResultListener listener) {}

    @Override
    public void kill(String id) {}

    @Override
    public void killAll() {}

    @Override
    public Map<String, QueryStats> progress() {
      return Map.of();
    }

    @Override
    public Optional<QueryStats> progress(String id) {
      return Optional.empty();
    }

    @Override
    public RuntimeStats stats() {
      return new RuntimeStats(0, 0, 0, 0, 0, null);
    }

    @Override
    public void sampleRecords(int everyN, RecordSampler sampler) {}

    @Override
    public String describe() {
      return "none";
    }

    @Override
    public void close() {}
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void infersPathsTypesSharesAndExamples() {
    AtomicLong now = new AtomicLong(0);
    try (SchemaSampler s = new SchemaSampler(new NoRuntime(), 1, 60_000, now::get)) {
      s.add(json("{\"id\":\"a\",\"n\":1,\"geo\":{\"country\":\"fr\"},\"tags\":[1],\"x\":null}"));
      s.add(json("{\"id\":\"b\",\"n\":2.5,\"geo\":{\"country\":\"us\",\"city\":\"NYC\"}}"));
      s.add(json("[1,2]")); // not an object: skipped
      s.add(json("{\"id\":\"c\",\"flag\":true}"));
      SchemaSampler.Snapshot snap = s.snapshot();
      assertThat(snap.records()).isEqualTo(3);
      Map<String, SchemaSampler.Field> by =
          snap.fields().stream()
              .collect(java.util.stream.Collectors.toMap(SchemaSampler.Field::path, f -> f));
      assertThat(snap.fields().get(0).path()).isEqualTo("id"); // in every record
      assertThat(by.get("id").share()).isEqualTo(1.0);
      assertThat(by.get("id").examples()).containsExactly("a", "b", "c");
      assertThat(by.get("n").types())
          .containsExactlyInAnyOrder(SchemaSampler.Kind.LONG, SchemaSampler.Kind.DOUBLE);
      assertThat(by.get("geo").types()).containsExactly(SchemaSampler.Kind.MAP);
      assertThat(by.get("geo.country").share()).isEqualTo(2 / 3.0);
      assertThat(by.get("geo.city").examples()).containsExactly("NYC");
      assertThat(by.get("tags").types()).containsExactly(SchemaSampler.Kind.LIST);
      assertThat(by.get("x").types()).containsExactly(SchemaSampler.Kind.NULL);
      assertThat(by.get("flag").examples()).containsExactly(true);
    }
  }

  @Test
  void forgetsFieldsNotSeenForTwoPeriods() {
    AtomicLong now = new AtomicLong(0);
    try (SchemaSampler s = new SchemaSampler(new NoRuntime(), 1, 1_000, now::get)) {
      s.add(json("{\"old\":1}"));
      now.set(1_500);
      s.add(json("{\"new\":1}"));
      assertThat(s.snapshot().fields())
          .extracting(SchemaSampler.Field::path)
          .containsExactlyInAnyOrder("old", "new");
      now.set(2_600);
      s.add(json("{\"new\":2}"));
      List<SchemaSampler.Field> fields = s.snapshot().fields();
      assertThat(fields).extracting(SchemaSampler.Field::path).containsExactly("new");
    }
  }
}
