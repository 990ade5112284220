package dev.idem.spring.web.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.BindException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.bind.ServletRequestBindingException;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.multipart.support.MissingServletRequestPartException;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Tells whether Spring MVC refused a request before its handler ran (unreadable body, failed
 * binding or validation, wrong media type). Such a refusal is not the operation's outcome: nothing
 * is stored and the key is freed, as Stripe does. The kind of exception says that it is a refusal;
 * where it was raised says whether the handler ran: only a refusal raised while Spring chose the
 * handler, resolved its arguments ({@link ArgumentRefusals}) or validated them comes before it. The
 * same exception raised by the handler itself, or while writing its answer (a 406 when no converter
 * writes what the client accepts), comes after: the handler ran, and its answer is kept.
 */
public final class ServletRefusals {

  private ServletRefusals() {}

  /**
   * True when the exception Spring MVC resolved for {@code request} refused it before its handler.
   */
  public static boolean refusedBeforeHandler(HttpServletRequest request) {
    Object e = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
    if (!isRefusal(e)) {
      return false;
    }
    return request.getAttribute(ArgumentRefusals.ATTRIBUTE) != null
        || e instanceof HandlerMethodValidationException
        || request.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE) == null;
  }

  private static boolean isRefusal(Object e) {
    return e instanceof HttpMessageNotReadableException
        || e instanceof BindException
        || e instanceof HandlerMethodValidationException
        || e instanceof ServletRequestBindingException
        || e instanceof TypeMismatchException
        || e instanceof HttpMediaTypeException
        || e instanceof MissingServletRequestPartException;
  }
}
