package io.spyglass.service.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tokens file that cannot be used says what it should hold; roles mean what they say. */
class TokensTest {
  static final String ALICE = "alice-0123456789abcdef";
  static final String BOB = "bob-0123456789abcdef";

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
    Path file =
        Files.writeString(dir.resolve("tokens.txt"), "# users\n" + ALICE + " alice admin\noops\n");
    assertThatThrownBy(() -> Tokens.load(file))
        .hasMessageContaining("line 3")
        .hasMessageContaining("expected TOKEN USER [admin]");
  }

  @Test
  void aGoodFileLoadsAndOldLinesMeanWhatTheyMeant() throws Exception {
    Path file =
        Files.writeString(dir.resolve("tokens.txt"), ALICE + " alice admin\n" + BOB + " bob\n");
    Tokens tokens = Tokens.load(file);
    assertThat(tokens.user(ALICE)).contains(new User("alice", true));
    assertThat(tokens.user(BOB)).contains(new User("bob", false));
    assertThat(tokens.user(ALICE).get().canIngest()).isTrue();
    assertThat(tokens.user(BOB).get().canIngest()).isFalse();
    assertThat(tokens.user(BOB + " ")).isEmpty();
    assertThat(tokens.user("bob")).isEmpty();
    assertThat(tokens.user(null)).isEmpty();
  }

  @Test
  void aTokenShorterThan16CharactersIsRefusedAtStartup() throws Exception {
    Path file =
        Files.writeString(dir.resolve("tokens.txt"), ALICE + " alice admin\nt0k-is-short bob\n");
    assertThatThrownBy(() -> Tokens.load(file))
        .hasMessageContaining("line 2")
        .hasMessageContaining("12 characters, fewer than 16")
        .hasMessageContaining("openssl rand")
        .hasMessageNotContaining("t0k-is-short");
  }

  @Test
  void rolesIngestAndTenants() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("tokens.txt"),
            ALICE + " meter ingest\n" + BOB + " acme ingest tenant=acme tenant=acme-eu\n");
    Tokens tokens = Tokens.load(file);
    User meter = tokens.user(ALICE).orElseThrow();
    assertThat(meter.canIngest()).isTrue();
    assertThat(meter.admin()).isFalse();
    assertThat(meter.boundToTenants()).isFalse();
    User acme = tokens.user(BOB).orElseThrow();
    assertThat(acme.canIngest()).isTrue();
    assertThat(acme.tenants()).isEqualTo(Set.of("acme", "acme-eu"));
  }

  @Test
  void anUnknownRoleOrAnAdminBoundToTenantsIsRefused() throws Exception {
    Path unknown = Files.writeString(dir.resolve("a.txt"), ALICE + " alice root\n");
    assertThatThrownBy(() -> Tokens.load(unknown))
        .hasMessageContaining("line 1")
        .hasMessageContaining("'root' is not a role")
        .hasMessageContaining("admin, ingest and tenant=NAME");
    Path both = Files.writeString(dir.resolve("b.txt"), ALICE + " alice admin tenant=acme\n");
    assertThatThrownBy(() -> Tokens.load(both))
        .hasMessageContaining("line 1")
        .hasMessageContaining("not both");
  }

  @Test
  void aTokenGivenTwiceIsRefused() throws Exception {
    Path file = Files.writeString(dir.resolve("t.txt"), ALICE + " alice\n" + ALICE + " bob\n");
    assertThatThrownBy(() -> Tokens.load(file))
        .hasMessageContaining("line 2")
        .hasMessageContaining("given twice");
  }

  @Test
  void withoutAFileEveryoneIsTheAnonymousAdminWhoIngests() {
    User u = Tokens.none().user(null).orElseThrow();
    assertThat(u.name()).isEqualTo(Tokens.ANONYMOUS);
    assertThat(u.admin()).isTrue();
    assertThat(u.canIngest()).isTrue();
  }
}
