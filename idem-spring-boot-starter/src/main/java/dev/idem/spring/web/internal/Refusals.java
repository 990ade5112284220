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
 * Tells whether a guarded request's answer is a refusal rather than its outcome: Spring MVC refused
 * it before its handler ran (unreadable body, failed binding or validation, wrong media type), as
 * Stripe counts them, or the handler met an Idem refusal that asks for a retry (an {@code
 * Idempotent} bean method it called was in progress, its store full or unavailable). Nothing is
 * stored and the key is freed.
 */
public final class Refusals {

  private Refusals() {}

  /** True when the exception Spring MVC resolved for {@code request} is a refusal. */
  public static boolean passedOn(HttpServletRequest request) {
    Object e = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
    return Problem.asksForRetry(e)
        || e instanceof HttpMessageNotReadableException
        || e instanceof BindException
        || e instanceof HandlerMethodValidationException
        || e instanceof ServletRequestBindingException
        || e instanceof TypeMismatchException
        || e instanceof HttpMediaTypeException
        || e instanceof MissingServletRequestPartException;
  }
}
