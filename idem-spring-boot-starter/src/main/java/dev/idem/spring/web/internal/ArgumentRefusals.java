package dev.idem.spring.web.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Marks a request whose handler method was never invoked because Spring MVC could not resolve one
 * of its arguments (an unreadable or invalid body, a missing header, a parameter of the wrong
 * type): each argument resolver of every {@link RequestMappingHandlerAdapter} is wrapped, and a
 * resolver that fails leaves {@link #ATTRIBUTE} on the request. {@link ServletRefusals} frees the
 * key only for a refusal so marked (or raised before a handler was chosen): the same exception
 * raised by the handler, or while writing its answer, comes after the handler ran.
 */
public final class ArgumentRefusals implements BeanPostProcessor {

  /** The request attribute set when an argument could not be resolved. */
  public static final String ATTRIBUTE = ArgumentRefusals.class.getName() + ".refused";

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof RequestMappingHandlerAdapter adapter) {
      List<HandlerMethodArgumentResolver> resolvers = adapter.getArgumentResolvers();
      if (resolvers != null) {
        adapter.setArgumentResolvers(resolvers.stream().map(Marking::of).toList());
      }
    }
    return bean;
  }

  private record Marking(HandlerMethodArgumentResolver resolver)
      implements HandlerMethodArgumentResolver {

    static HandlerMethodArgumentResolver of(HandlerMethodArgumentResolver resolver) {
      return resolver instanceof Marking ? resolver : new Marking(resolver);
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
      return resolver.supportsParameter(parameter);
    }

    @Override
    public @Nullable Object resolveArgument(
        MethodParameter parameter,
        @Nullable ModelAndViewContainer container,
        NativeWebRequest request,
        @Nullable WebDataBinderFactory binders)
        throws Exception {
      try {
        return resolver.resolveArgument(parameter, container, request, binders);
      } catch (Exception e) {
        request.setAttribute(ATTRIBUTE, Boolean.TRUE, RequestAttributes.SCOPE_REQUEST);
        throw e;
      }
    }
  }
}
