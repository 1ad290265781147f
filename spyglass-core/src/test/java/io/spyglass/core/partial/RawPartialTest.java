package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RawPartialTest {
  @Test
  void keepsRecordsUpToTheLimit() {
    RawPartial p = new RawPartial(3);
    assertThat(p.isEmpty()).isTrue();
    assertThat(p.add(Fixtures.record(1))).isTrue();
    assertThat(p.add(Fixtures.record(2))).isTrue();
    assertThat(p.isFull()).isFalse();
    assertThat(p.add(Fixtures.record(3))).isTrue();
    assertThat(p.isFull()).isTrue();
    assertThat(p.add(Fixtures.record(4))).isFalse();
    assertThat(p.rows())
        .containsExactly(Fixtures.record(1), Fixtures.record(2), Fixtures.record(3));
    assertThat(p.metadata()).isEmpty();
  }

  @Test
  void mergeAppendsUpToTheLimit() {
    RawPartial a = new RawPartial(3);
    a.add(Fixtures.record(1));
    RawPartial b = new RawPartial(3);
    b.add(Fixtures.record(2));
    b.add(Fixtures.record(3));
    b.add(Fixtures.record(4));
    a.merge(b);
    assertThat(a.rows())
        .containsExactly(Fixtures.record(1), Fixtures.record(2), Fixtures.record(3));
    assertThat(b.size()).isEqualTo(3);
  }

  @Test
  void resetAndCopiesAreEmpty() {
    RawPartial a = new RawPartial(2);
    a.add(Fixtures.record(1));
    RawPartial copy = a.emptyCopy();
    assertThat(copy.isEmpty()).isTrue();
    assertThat(copy.limit()).isEqualTo(2);
    a.reset();
    assertThat(a.isEmpty()).isTrue();
  }

  @Test
  void refusesOtherParameters() {
    assertThatThrownBy(() -> new RawPartial(2).merge(new RawPartial(3)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RawPartial(2).merge(Fixtures.countDistinct(16)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void roundTrips() {
    RawPartial a = new RawPartial(5);
    a.add(Fixtures.record(1));
    a.add(Fixtures.record(2));
    Partial back = Partials.decode(Partials.encode(a));
    assertThat(back).isInstanceOf(RawPartial.class);
    assertThat(back.rows()).isEqualTo(a.rows());
    assertThat(((RawPartial) back).limit()).isEqualTo(5);
  }
}
