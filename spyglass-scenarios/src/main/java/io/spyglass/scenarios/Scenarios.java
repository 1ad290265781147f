package io.spyglass.scenarios;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every scenario, by name, in the order of the studies they follow. */
public final class Scenarios {
  private static final List<Scenario> ALL =
      List.of(
          new LatencyScenario(),
          new FindScenario(),
          new RawQueriesScenario(),
          new DataScalingScenario(),
          new QueryScalingScenario(),
          new QueryKindsScenario(),
          new PipelineScenario(),
          new MeteringScenario(),
          new ServiceScenario(),
          new VersusBulletScenario(),
          new EndToEndScenario());

  private Scenarios() {}

  static Map<String, Scenario> byName() {
    Map<String, Scenario> m = new LinkedHashMap<>();
    for (Scenario s : ALL) {
      m.put(s.name(), s);
    }
    return m;
  }

  /** The names, for help texts. */
  public static List<String> names() {
    return ALL.stream().map(Scenario::name).toList();
  }
}
