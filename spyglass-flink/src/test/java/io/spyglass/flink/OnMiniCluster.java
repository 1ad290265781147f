package io.spyglass.flink;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The class's tests run their jobs on a Flink mini cluster in this JVM: one TaskManager of {@link
 * #slots()} slots, as Flink's {@link MiniClusterExtension} registered on a static field runs it
 * (started before the class's first test, the jobs a test leaves cancelled after it, stopped after
 * the last; {@code StreamExecutionEnvironment.getExecutionEnvironment()} submits to it, and a test
 * parameter {@code @InjectMiniCluster MiniCluster} is the cluster).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(OnMiniCluster.Cluster.class)
@interface OnMiniCluster {
  /** The TaskManager's slots: the highest parallelism of the class's jobs. */
  int slots() default 2;

  /** {@link MiniClusterExtension} with the slots of the class's {@link OnMiniCluster}. */
  final class Cluster
      implements BeforeAllCallback,
          BeforeEachCallback,
          AfterEachCallback,
          AfterAllCallback,
          ParameterResolver {
    private int slots;
    private final MiniClusterExtension flink =
        new MiniClusterExtension(
            () ->
                new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(slots)
                    .build());
    private boolean started;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
      slots =
          AnnotationSupport.findAnnotation(context.getRequiredTestClass(), OnMiniCluster.class)
              .orElseThrow()
              .slots();
      flink.beforeAll(context);
      started = true;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
      flink.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
      flink.afterEach(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
      if (started) {
        started = false;
        flink.afterAll(context);
      }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return started && flink.supportsParameter(parameter, context);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return flink.resolveParameter(parameter, context);
    }
  }
}
