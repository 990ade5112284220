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

/**
 * Tells whether Spring MVC refused a request before its handler ran (unreadable body, failed
 * binding or validation, wrong media type). Such a refusal is not the operation's outcome: nothing
 * is stored and the key is freed, as Stripe does.
 */
public final class Refusals {

  private Refusals() {}

  /** True when the exception Spring MVC resolved for {@code request} is a refusal. */
  public static boolean refusedBeforeHandler(HttpServletRequest request) {
    Object e = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
    return e instanceof HttpMessageNotReadableException
        || e instanceof BindException
        || e instanceof HandlerMethodValidationException
        || e instanceof ServletRequestBindingException
        || e instanceof TypeMismatchException
        || e instanceof HttpMediaTypeException
        || e instanceof MissingServletRequestPartException;
  }
}
