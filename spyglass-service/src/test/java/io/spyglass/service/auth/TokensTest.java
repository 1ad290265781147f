package io.spyglass.service.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tokens file that cannot be used says what it should hold. */
class TokensTest {
  @TempDir Path dir;

  @Test
  void aMissingFileSaysWhatItShouldHold() {
    // as someone who typed the token itself where the file's path goes: --tokens alice:secret
    assertThatThrownBy(() -> Tokens.load(dir.resolve("alice:secret")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no tokens file")
        .hasMessageContaining("alice:secret")
        .hasMessageContaining("TOKEN USER [admin]");
  }

  @Test
  void aBadLineIsNamedByItsNumber() throws Exception {
    Path file = Files.writeString(dir.resolve("tokens.txt"), "# users\ns3cr3t alice admin\noops\n");
    assertThatThrownBy(() -> Tokens.load(file))
        .hasMessageContaining("line 3")
        .hasMessageContaining("expected TOKEN USER [admin]");
  }

  @Test
  void aGoodFileLoads() throws Exception {
    Path file = Files.writeString(dir.resolve("tokens.txt"), "s3cr3t alice admin\nt0k bob\n");
    assertThat(Tokens.load(file)).isNotNull();
  }
}
