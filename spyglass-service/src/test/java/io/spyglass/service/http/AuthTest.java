package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.service.auth.Tokens;
import io.spyglass.service.auth.User;
import org.junit.jupiter.api.Test;

class AuthTest {
  // review finding 21: the edge built its own anonymous user, without the ingest role

  @Test
  void withoutTokensTheEdgesUserIsTheTokensOne() {
    Tokens none = Tokens.none();
    Auth auth = new Auth(none, new Tickets(System::currentTimeMillis), null, TrustedProxies.NONE);
    User u = auth.anonymous();
    assertThat(u).isEqualTo(none.user(null).orElseThrow());
    assertThat(u.name()).isEqualTo(Tokens.ANONYMOUS);
    assertThat(u.admin()).isTrue();
    assertThat(u.ingest()).isTrue();
    assertThat(u.boundToTenants()).isFalse();
  }
}
