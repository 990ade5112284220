package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The shop on the {@link Backend} of the run (the embedded default unless the build asks for
 * PostgreSQL or MariaDB), started once on a random port and driven over real HTTP. After every test
 * the audit must be ok once the outbox has drained.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles(resolver = Backend.Profiles.class)
abstract class EndToEnd {

  static {
    Backend.current().prepareOnce();
  }

  @DynamicPropertySource
  static void backendProperties(DynamicPropertyRegistry registry) {
    Backend.current().addProperties(registry);
  }

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  ShopClient alice;
  ShopClient bob;
  ShopClient admin;

  @BeforeEach
  void logIn() {
    alice = new ShopClient(port, "alice", "alice");
    bob = new ShopClient(port, "bob", "bob");
    admin = new ShopClient(port, "admin", "admin");
  }

  @AfterEach
  void theAuditIsOk() {
    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> admin.get("/api/audit").json(),
                r ->
                    r.path("pendingMessages").asLong() == 0
                        && r.path("pendingPoints").asLong() == 0
                        && r.path("pendingDebits").asLong() == 0);
    assertThat(report.path("violations").toString()).isEqualTo("[]");
    assertThat(report.path("ok").asBoolean()).isTrue();
  }

  long count(String sql, Object... args) {
    Long n = jdbc.queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }

  static String key() {
    return UUID.randomUUID().toString();
  }
}
