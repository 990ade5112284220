package dev.idem.spring.web;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.spring.IdempotencyStoreDecorator;
import io.lettuce.core.RedisClient;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The application the HTTP conformance suite talks to. The caller is named by an {@code X-User}
 * header (a stand-in for real authentication); a DataSource or RedisClient exists only when a test
 * asks for one, so that the automatic store selection is what picks the store.
 */
@SpringBootConfiguration
// Spring Data Redis is on the test class path; these applications pick their store otherwise.
@EnableAutoConfiguration(
    excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@Import({TestController.class, Refunds.class})
public class TestApplication {

  static final String POSTGRES_URL =
      env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  static final String REDIS_URL = env("IDEM_REDIS_URL", "redis://127.0.0.1:6379");

  @Bean
  OncePerRequestFilter headerPrincipal() {
    return new HeaderPrincipalFilter();
  }

  /**
   * A functional route, protected by its path alone ({@code idem.http.paths}), that calls the
   * guarded refund bean method: no exception handler of the application's answers what it throws.
   */
  @Bean
  org.springframework.web.servlet.function.RouterFunction<
          org.springframework.web.servlet.function.ServerResponse>
      refundFunction(Refunds refunds) {
    return org.springframework.web.servlet.function.RouterFunctions.route()
        .POST(
            "/by-path/refund-fn",
            request ->
                org.springframework.web.servlet.function.ServerResponse.ok()
                    .body(
                        refunds.refund(
                            request.param("id").orElse(null),
                            Integer.parseInt(request.param("cents").orElse("0")))))
        .build();
  }

  /** Counts the engine's claims of each key, so that a test can tell a waiter from a refusal. */
  @Bean
  IdempotencyStoreDecorator claimCounter(TestController controller) {
    return countingClaims(controller::claimed);
  }

  /** A decorator that tells {@code claimed} the key value of every claim the engine makes. */
  static IdempotencyStoreDecorator countingClaims(Consumer<String> claimed) {
    return store ->
        new ForwardingIdempotencyStore(store) {
          @Override
          public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
            claimed.accept(request.key().value());
            return super.claim(request);
          }
        };
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty("test.postgres")
  DataSource dataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(POSTGRES_URL);
    config.setMaximumPoolSize(16);
    return new HikariDataSource(config);
  }

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty("test.redis")
  RedisClient redisClient() {
    return RedisClient.create(REDIS_URL);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  /** Sets the principal from {@code X-User}. */
  static final class HeaderPrincipalFilter extends OncePerRequestFilter implements Ordered {
    @Override
    public int getOrder() {
      return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      String user = request.getHeader("X-User");
      if (user == null) {
        chain.doFilter(request, response);
        return;
      }
      Principal principal = () -> user;
      chain.doFilter(
          new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
              return principal;
            }
          },
          response);
    }
  }
}
