package io.spyglass.scenarios;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

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

  /** The built-in scenarios, then those of other modules on the class path. */
  static Map<String, Scenario> byName() {
    Map<String, Scenario> m = new LinkedHashMap<>();
    for (Scenario s : ALL) {
      m.put(s.name(), s);
    }
    for (Scenario s : ServiceLoader.load(Scenario.class, Scenarios.class.getClassLoader())) {
      m.putIfAbsent(s.name(), s);
    }
    return m;
  }

  /** The names, for help texts. */
  public static List<String> names() {
    return List.copyOf(byName().keySet());
  }
}
