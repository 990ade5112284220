package dev.idem.spring.web.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.TypeMismatchException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodParameter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.BindException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.bind.ServletRequestBindingException;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.multipart.support.MissingServletRequestPartException;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Tells whether Spring MVC refused a request before its handler ran (unreadable body, failed
 * binding or validation, wrong media type). Such a refusal is not the operation's outcome: nothing
 * is stored and the key is freed, as Stripe does. The kind of exception says that it is a refusal;
 * where it was raised says whether the handler ran: only a refusal raised while Spring chose the
 * handler, resolved its arguments or validated them comes before it. The same exception raised by
 * the handler itself, or while writing its answer (a 406 when no converter writes what the client
 * accepts), comes after: the handler ran, and its answer is kept.
 *
 * <p>As a bean, it marks the requests whose arguments could not be resolved: each argument resolver
 * of every {@link RequestMappingHandlerAdapter} is wrapped, and a resolver that fails leaves {@link
 * #ATTRIBUTE} on the request.
 */
public final class ServletRefusals implements BeanPostProcessor {

  /** The request attribute set when an argument could not be resolved. */
  public static final String ATTRIBUTE = ServletRefusals.class.getName() + ".argumentRefused";

  /**
   * True when the exception Spring MVC resolved for {@code request} refused it before its handler.
   */
  public static boolean refusedBeforeHandler(HttpServletRequest request) {
    Object e = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
    if (!isRefusal(e)) {
      return false;
    }
    return request.getAttribute(ATTRIBUTE) != null
        || e instanceof HandlerMethodValidationException
        || request.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE) == null;
  }

  private static boolean isRefusal(@Nullable Object e) {
    return e instanceof HttpMessageNotReadableException
        || e instanceof BindException
        || e instanceof HandlerMethodValidationException
        || e instanceof ServletRequestBindingException
        || e instanceof TypeMismatchException
        || e instanceof HttpMediaTypeException
        || e instanceof MissingServletRequestPartException;
  }

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
