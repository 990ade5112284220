package dev.idem.spring.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spring.autoconfigure.IdemClientAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * {@code idem.client.retries=true} gives the builders Spring Boot hands out Idem's retries: a
 * client built from them, against a real server that answers 503 first, retries under one key.
 */
class IdemClientAutoConfigurationTest {

  private final ScriptedServer server = new ScriptedServer();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemClientAutoConfiguration.class,
                  RestClientAutoConfiguration.class,
                  WebClientAutoConfiguration.class));

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void bootsRestClientBuilderRetriesUnderOneKey() {
    runner
        .withPropertyValues("idem.client.retries=true", "idem.client.first-delay=1ms")
        .run(
            context -> {
              server.then(503, 0);
              RestClient client =
                  context
                      .getBean(RestClient.Builder.class)
                      .baseUrl(server.url())
                      .requestFactory(new JdkClientHttpRequestFactory())
                      .build();

              String answer = client.post().uri("/orders").body("{}").retrieve().body(String.class);

              assertThat(answer).isEqualTo("answer 200 #2");
              assertThat(server.keysSeen()).hasSize(2).doesNotContain("none");
              assertThat(server.keysSeen()).containsOnly(server.keysSeen().get(0));
            });
  }

  @Test
  void bootsWebClientBuilderRetriesUnderOneKey() {
    runner
        .withPropertyValues("idem.client.retries=true", "idem.client.first-delay=1ms")
        .run(
            context -> {
              server.then(503, 0);
              WebClient client =
                  context
                      .getBean(WebClient.Builder.class)
                      .baseUrl(server.url())
                      .clientConnector(new JdkClientHttpConnector())
                      .build();

              String answer =
                  client
                      .post()
                      .uri("/orders")
                      .bodyValue("{}")
                      .retrieve()
                      .bodyToMono(String.class)
                      .block();

              assertThat(answer).isEqualTo("answer 200 #2");
              assertThat(server.keysSeen()).containsOnly(server.keysSeen().get(0)).hasSize(2);
            });
  }

  @Test
  void offByDefault() {
    runner.run(
        context -> {
          assertThat(context).doesNotHaveBean(IdempotentRetries.class);
          server.then(503, 0);
          RestClient client =
              context
                  .getBean(RestClient.Builder.class)
                  .baseUrl(server.url())
                  .requestFactory(new JdkClientHttpRequestFactory())
                  .build();
          assertThatThrownBy(
                  () -> client.post().uri("/orders").body("{}").retrieve().toBodilessEntity())
              .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
          assertThat(server.keysSeen()).containsExactly("none"); // one attempt, no key
        });
  }
}
