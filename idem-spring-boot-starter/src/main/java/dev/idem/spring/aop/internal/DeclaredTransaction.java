package dev.idem.spring.aop.internal;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAttributes;

/**
 * Whether a method's own declaration puts its effects in a transaction: Spring's or Jakarta's
 * {@code @Transactional} on the method (else on its class), with a propagation that runs it in one.
 * Read by name, so that neither annotation needs to be on the class path.
 */
final class DeclaredTransaction {

  private static final String SPRING = "org.springframework.transaction.annotation.Transactional";
  private static final String JAKARTA = "jakarta.transaction.Transactional";
  private static final Set<String> WITHOUT = Set.of("NOT_SUPPORTED", "NEVER");
  private static final Set<String> OWN = Set.of("REQUIRES_NEW", "NOT_SUPPORTED", "NEVER");

  private DeclaredTransaction() {}

  static boolean of(Method method, Class<?> userClass) {
    for (AnnotatedElement element : new AnnotatedElement[] {method, userClass}) {
      AnnotationAttributes spring = attributes(element, SPRING);
      if (spring != null) {
        return !WITHOUT.contains(String.valueOf(spring.get("propagation")));
      }
      AnnotationAttributes jakarta = attributes(element, JAKARTA);
      if (jakarta != null) {
        return !WITHOUT.contains(String.valueOf(jakarta.get("value")));
      }
    }
    return false;
  }

  /**
   * Whether the method's declaration runs it in its caller's transaction when there is one: a
   * {@code @Transactional} with a propagation that joins (Spring's {@code REQUIRED}, {@code
   * SUPPORTS}, {@code MANDATORY}, {@code NESTED}; Jakarta's first three), so that a rollback of the
   * caller takes its effects back.
   */
  static boolean joinsCaller(Method method, Class<?> userClass) {
    for (AnnotatedElement element : new AnnotatedElement[] {method, userClass}) {
      AnnotationAttributes spring = attributes(element, SPRING);
      if (spring != null) {
        return !OWN.contains(String.valueOf(spring.get("propagation")));
      }
      AnnotationAttributes jakarta = attributes(element, JAKARTA);
      if (jakarta != null) {
        return !OWN.contains(String.valueOf(jakarta.get("value")));
      }
    }
    return false;
  }

  private static @Nullable AnnotationAttributes attributes(
      AnnotatedElement element, String annotation) {
    return AnnotatedElementUtils.findMergedAnnotationAttributes(element, annotation, false, false);
  }
}
