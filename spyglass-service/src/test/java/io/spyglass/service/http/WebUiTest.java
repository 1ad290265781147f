package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebUiTest {
  @TempDir Path tmp;

  @Test
  void theFilesOfAUiInAJarAreServedFromACopyOfThemAlone() throws Exception {
    Path jar = tmp.resolve("app.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      put(out, "io/spyglass/Other.class", "not the UI's");
      put(out, "spyglass-ui/index.html", "<html>index</html>");
      put(out, "spyglass-ui/assets/index-1.js", "console.log(1)");
      put(out, "spyglass-ui-not/x.txt", "nor this");
    }
    URL index = URI.create("jar:" + jar.toUri() + "!/spyglass-ui/index.html").toURL();

    Path files = WebUi.filesOf(index);

    assertThat(files).isNotEqualTo(tmp);
    assertThat(Files.readString(files.resolve("index.html"))).isEqualTo("<html>index</html>");
    assertThat(Files.readString(files.resolve("assets/index-1.js"))).isEqualTo("console.log(1)");
    try (var all = Files.walk(files)) {
      assertThat(all.filter(Files::isRegularFile).count()).isEqualTo(2);
    }
  }

  @Test
  void aUiInAFolderIsServedFromThatFolder() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("spyglass-ui"));
    Files.writeString(dir.resolve("index.html"), "<html/>");

    assertThat(WebUi.filesOf(dir.resolve("index.html").toUri().toURL())).isEqualTo(dir);
  }

  @Test
  void theCopiesOfProcessesThatEndedAreDeletedNotThoseOfRunningOnes() throws Exception {
    long running = ProcessHandle.current().pid();
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path gone = Files.createDirectories(tmp.resolve(WebUi.COPY_PREFIX + ended.pid() + "-1"));
    Files.writeString(gone.resolve("index.html"), "<html/>");
    Path kept = Files.createDirectories(tmp.resolve(WebUi.COPY_PREFIX + running + "-2"));
    Path other = Files.createDirectories(tmp.resolve(WebUi.COPY_PREFIX + "tokens-3"));

    WebUi.deleteCopiesOfEndedProcesses(tmp);

    assertThat(gone).doesNotExist();
    assertThat(kept).exists();
    assertThat(other).exists();
  }

  private static void put(JarOutputStream out, String name, String text) throws Exception {
    out.putNextEntry(new JarEntry(name));
    OutputStream o = out;
    o.write(text.getBytes(StandardCharsets.UTF_8));
    out.closeEntry();
  }
}
