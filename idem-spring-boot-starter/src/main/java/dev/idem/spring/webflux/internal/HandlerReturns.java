package dev.idem.spring.webflux.internal;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Marks an exchange whose handler method was invoked and returned: it runs annotated handlers ahead
 * of Spring's own {@link RequestMappingHandlerAdapter}, through it, and sets {@link #ATTRIBUTE}
 * when the adapter hands back the method's own result. A refusal raised before the mark (resolving
 * or validating the arguments, choosing the handler) comes before the handler ran; one raised after
 * it (the pipeline it returned failed, or its answer could not be written as the client accepts)
 * comes after: the handler may have done its work.
 */
public final class HandlerReturns implements HandlerAdapter, Ordered {

  /** The exchange attribute set once the handler method returned. */
  public static final String ATTRIBUTE = HandlerReturns.class.getName() + ".returned";

  private final ObjectProvider<RequestMappingHandlerAdapter> adapters;

  public HandlerReturns(ObjectProvider<RequestMappingHandlerAdapter> adapters) {
    this.adapters = adapters;
  }

  /** Whether the handler method of {@code exchange} was invoked and returned. */
  public static boolean returned(ServerWebExchange exchange) {
    return exchange.getAttribute(ATTRIBUTE) != null;
  }

  @Override
  public boolean supports(Object handler) {
    RequestMappingHandlerAdapter adapter = adapters.getIfUnique();
    return handler instanceof HandlerMethod && adapter != null && adapter.supports(handler);
  }

  @Override
  public Mono<HandlerResult> handle(ServerWebExchange exchange, Object handler) {
    return adapters
        .getObject()
        .handle(exchange, handler)
        .doOnNext(
            result -> {
              // the adapter also hands back what an @ExceptionHandler method answered for an
              // error raised before the handler was invoked: that is not the handler's return
              if (result.getHandler() instanceof HandlerMethod invoked
                  && invoked.getMethod().equals(((HandlerMethod) handler).getMethod())) {
                exchange.getAttributes().put(ATTRIBUTE, Boolean.TRUE);
              }
            });
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
