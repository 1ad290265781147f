package io.spyglass.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Runs every case of every {@code src/test/resources/golden/*.golden} file. */
class GoldenScriptsTest {
  @TestFactory
  Stream<DynamicTest> goldenScripts() throws IOException {
    Path dir = Paths.get("src/test/resources/golden");
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".golden")).sorted().toList();
    }
    if (files.isEmpty()) {
      throw new AssertionError("no golden scripts in " + dir.toAbsolutePath());
    }
    return files.stream()
        .flatMap(f -> GoldenScript.parse(f).stream())
        .map(c -> DynamicTest.dynamicTest(c.toString(), () -> GoldenScript.run(c)));
  }
}
