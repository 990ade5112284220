package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.Idempotent;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.RouteResolver;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.context.support.StaticWebApplicationContext;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

class RouteResolverTest {

  private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
  private final RouteResolver routes =
      new RouteResolver(
          beans.getBeanProvider(RequestMappingHandlerMapping.class),
          List.of(),
          new IdemPolicies(new IdemProperties(), List.of()));

  @Test
  void findsTheAnnotatedRouteOfAHandlerMapping() {
    beans.registerSingleton("mapping", mapping());

    Route route = routes.resolve(new MockHttpServletRequest("POST", "/orders/7"));

    assertThat(route).isNotNull();
    assertThat(route.operation()).isEqualTo("orders");
    assertThat(route.template()).isEqualTo("/orders/{id}");
    assertThat(routes.resolve(new MockHttpServletRequest("POST", "/other"))).isNull();
  }

  @Test
  void aRequestServedBeforeTheMappingsExistDoesNotLeaveLaterOnesUnprotected() {
    MockHttpServletRequest early = new MockHttpServletRequest("POST", "/orders/7");
    assertThat(routes.resolve(early)).isNull();

    beans.registerSingleton("mapping", mapping());

    assertThat(routes.resolve(new MockHttpServletRequest("POST", "/orders/7"))).isNotNull();
  }

  private static RequestMappingHandlerMapping mapping() {
    StaticWebApplicationContext context = new StaticWebApplicationContext();
    context.registerSingleton("orders", Orders.class);
    context.refresh();
    RequestMappingHandlerMapping mapping = new RequestMappingHandlerMapping();
    mapping.setApplicationContext(context);
    mapping.afterPropertiesSet();
    return mapping;
  }

  @Controller
  static class Orders {
    @Idempotent(operation = "orders")
    @PostMapping("/orders/{id}")
    void order() {
      // only its mapping matters
    }
  }
}
