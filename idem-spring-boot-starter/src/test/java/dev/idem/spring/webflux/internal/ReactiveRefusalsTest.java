package dev.idem.spring.webflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.UnsatisfiedRequestParameterException;

/**
 * Where an input refusal was raised decides whether it frees the key: before any handler took the
 * request (a params condition no mapping met) it does; raised by the application once a handler
 * took it, without naming a parameter, it is the handler's answer.
 */
class ReactiveRefusalsTest {

  @Test
  void aRefusalBeforeAnyHandlerTookTheRequestFreesTheKey() {
    MockServerWebExchange exchange =
        MockServerWebExchange.from(MockServerHttpRequest.post("/by-path/confirm"));
    UnsatisfiedRequestParameterException unmet =
        new UnsatisfiedRequestParameterException(
            List.of("confirm"), new org.springframework.util.LinkedMultiValueMap<>());

    assertThat(unmet.getMethodParameter()).isNull();
    assertThat(ReactiveRefusals.beforeHandler(exchange, unmet)).isTrue();
  }

  @Test
  void aRefusalNamingNoParameterOnceAHandlerTookTheRequestIsTheHandlersAnswer() {
    MockServerWebExchange exchange =
        MockServerWebExchange.from(MockServerHttpRequest.post("/charge-then-refuse"));
    exchange.getAttributes().put(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE, new Object());

    assertThat(ReactiveRefusals.beforeHandler(exchange, new ServerWebInputException("refused")))
        .isFalse();
  }
}
