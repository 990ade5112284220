package dev.idem.spring.web;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.IdempotencyStoreDecorator;
import io.lettuce.core.RedisClient;
import java.security.Principal;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The WebFlux application the WebFlux conformance suite talks to, as {@link TestApplication} is for
 * Spring MVC: the caller named by {@code X-User}, a DataSource or RedisClient only when a test asks
 * for one, and a functional route under {@code /by-path/**}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@Import({WebFluxTestController.class, Refunds.class})
public class WebFluxTestApplication {

  @Bean
  @Order(Ordered.HIGHEST_PRECEDENCE)
  WebFilter headerPrincipal() {
    return (exchange, chain) -> {
      String user = exchange.getRequest().getHeaders().getFirst("X-User");
      if (user == null) {
        return chain.filter(exchange);
      }
      Principal principal = () -> user;
      return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    };
  }

  /** Counts the engine's claims of each key, so that a test can tell a waiter from a refusal. */
  @Bean
  IdempotencyStoreDecorator claimCounter(WebFluxTestController controller) {
    return TestApplication.countingClaims(controller::claimed);
  }

  /** A functional route, protected by its path alone ({@code idem.http.paths}). */
  @Bean
  RouterFunction<ServerResponse> byPath(WebFluxTestController controller, Refunds refunds) {
    return RouterFunctions.route()
        .POST(
            "/by-path/refund-fn",
            request ->
                refunds
                    .refundLater(
                        request.queryParam("id").orElse(null),
                        Integer.parseInt(request.queryParam("cents").orElse("0")))
                    .flatMap(refund -> ServerResponse.ok().bodyValue(refund)))
        .POST(
            "/by-path/charge-then-read",
            request -> {
              // charges, then reads its body itself: a malformed one is refused after the charge
              int charge = controller.count(request.headers().firstHeader("X-Run"));
              return request
                  .bodyToMono(TestController.Order.class)
                  .flatMap(order -> ServerResponse.ok().bodyValue("charged #" + charge));
            })
        .POST(
            "/by-path/{name}",
            request ->
                ServerResponse.ok()
                    .bodyValue(
                        request.pathVariable("name")
                            + " "
                            + controller.count(request.headers().firstHeader("X-Run"))
                            + " "
                            + System.nanoTime()))
        .build();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty("test.postgres")
  DataSource dataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestApplication.POSTGRES_URL);
    config.setMaximumPoolSize(16);
    return new HikariDataSource(config);
  }

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnProperty("test.redis")
  RedisClient redisClient() {
    return RedisClient.create(TestApplication.REDIS_URL);
  }
}
