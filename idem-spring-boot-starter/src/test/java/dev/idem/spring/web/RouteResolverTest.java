package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.Idempotent;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.RouteResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.context.support.StaticWebApplicationContext;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

class RouteResolverTest {

  private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
  private final RouteResolver routes =
      new RouteResolver(
          beans.getBeanProvider(RequestMappingHandlerMapping.class),
          List.of("/carts/**"),
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

  @Test
  void judgesAHandlerAndMethodWithoutARequestAsItJudgesTheirRequests() {
    RequestMappingHandlerMapping mapping = mapping();
    beans.registerSingleton("mapping", mapping);
    routes.checkHandlers();
    List<String> guarded = new ArrayList<>();

    mapping
        .getHandlerMethods()
        .forEach(
            (info, handler) -> {
              String template = info.getPatternValues().iterator().next();
              Set<RequestMethod> served = info.getMethodsCondition().getMethods();
              for (RequestMethod method :
                  served.isEmpty() ? Set.of(RequestMethod.values()) : served) {
                Route described = routes.resolve(handler, method.name(), template);
                Route byRequest =
                    routes.resolve(
                        new MockHttpServletRequest(method.name(), template.replace("{id}", "7")));
                assertThat(described).as(method + " " + template).isEqualTo(byRequest);
                if (described != null) {
                  guarded.add(method + " " + template);
                }
              }
            });

    assertThat(guarded)
        .containsExactlyInAnyOrder(
            "POST /orders/{id}",
            "POST /anything",
            "PATCH /anything",
            "PUT /anything",
            "DELETE /anything",
            "POST /carts/{id}");
  }

  @Test
  void aHandlerOnSeveralRoutesRunsUnderOneOperationAndInheritingControllersUnderTheirOwn() {
    StaticWebApplicationContext context = new StaticWebApplicationContext();
    context.registerSingleton("payments", Payments.class);
    context.registerSingleton("orderLines", OrderLines.class);
    context.registerSingleton("refundLines", RefundLines.class);
    context.refresh();
    RequestMappingHandlerMapping mapping = new RequestMappingHandlerMapping();
    mapping.setApplicationContext(context);
    mapping.afterPropertiesSet();
    beans.registerSingleton("mapping", mapping);
    routes.checkHandlers();

    assertThat(operationOf("POST", "/pay")).isEqualTo("POST /pay");
    assertThat(operationOf("POST", "/v2/pay")).isEqualTo("POST /pay");
    assertThat(operationOf("PATCH", "/pay")).isEqualTo("POST /pay");
    // one method, inherited by two controllers: two handlers, two operations
    assertThat(operationOf("POST", "/order-lines")).isEqualTo("POST /order-lines");
    assertThat(operationOf("POST", "/refund-lines")).isEqualTo("POST /refund-lines");
  }

  private String operationOf(String method, String path) {
    return routes.resolve(new MockHttpServletRequest(method, path)).operation();
  }

  @Controller
  static class Payments {
    @Idempotent
    @RequestMapping(
        path = {"/pay", "/v2/pay"},
        method = {RequestMethod.POST, RequestMethod.PATCH})
    void pay() {
      // only its mappings matter
    }
  }

  abstract static class Lines {
    @Idempotent
    @PostMapping
    void add() {
      // inherited by both controllers below
    }
  }

  @Controller
  @RequestMapping("/order-lines")
  static class OrderLines extends Lines {}

  @Controller
  @RequestMapping("/refund-lines")
  static class RefundLines extends Lines {}

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

    @Idempotent
    @RequestMapping("/anything")
    void anything() {
      // mapped to every method: guarded on POST, PATCH, PUT and DELETE
    }

    @RequestMapping(
        path = "/carts/{id}",
        method = {RequestMethod.GET, RequestMethod.POST})
    void cart() {
      // guarded on POST through idem.http.paths
    }
  }
}
