package dev.idem.spring.aop.internal;

import dev.idem.spring.EventId;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.BeanUtils;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.EventListener;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Application event listeners ({@code @EventListener} and what is meta-annotated with it:
 * {@code @TransactionalEventListener}, Spring Modulith's {@code @ApplicationModuleListener}):
 * without a key expression their key is the {@link EventId} their event declares, so a listener
 * handles an event once however often it is delivered. The scope stays the operation, which names
 * the listener: two listeners of one event each handle it once.
 */
final class EventListenerKeys {

  private EventListenerKeys() {}

  /**
   * An {@code @EventListener} method, or an {@code ApplicationListener}'s {@code
   * onApplicationEvent}.
   */
  static boolean isListener(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, EventListener.class)
        || (method.getName().equals("onApplicationEvent")
            && method.getParameterCount() == 1
            && ApplicationListener.class.isAssignableFrom(method.getDeclaringClass()));
  }

  /**
   * The key expression of a listener that names none: the event's class (its simple name, so that
   * two event types of one listener never share a key) and its declared identity, as {@code
   * PaymentSucceeded/<id>}.
   *
   * @throws IllegalStateException when the listener takes no single event, or its event declares no
   *     readable identity, or more than one, or the listener returns a value (Spring publishes it
   *     as an event, again on every replay) or a result that ends later
   */
  static String keyExpression(String operation, Method method) {
    if (method.getParameterCount() != 1) {
      throw refused(
          operation,
          "takes "
              + method.getParameterCount()
              + " parameters, so no event names its key; take the event as the one parameter");
    }
    Class<?> event = method.getParameterTypes()[0];
    List<String> paths = paths(operation, event);
    if (paths.size() != 1) {
      throw refused(
          operation,
          paths.isEmpty()
              ? "takes "
                  + event.getName()
                  + ", which marks no property with @EventId"
                  + "; mark the event's identity with @EventId or name a key expression such as"
                  + " key = \"#event.id\""
              : "takes "
                  + event.getName()
                  + ", which marks "
                  + paths
                  + " with @EventId; mark one, or name a key expression");
    }
    String identity = "#p0." + paths.get(0);
    // a null or empty identity is a missing key, not the text "null" nor the class name alone
    return "("
        + identity
        + " == null or "
        + identity
        + ".toString().isEmpty()) ? null : #p0.getClass().getSimpleName() + '/' + "
        + identity;
  }

  // methods (a record component's annotation is on its accessor too), and a class's fields
  private static List<String> paths(String operation, Class<?> event) {
    List<String> paths = new ArrayList<>();
    // a generic accessor's bridge twin, and an overridden method, carry the annotation too
    ReflectionUtils.doWithMethods(
        event,
        method -> {
          String path = methodPath(operation, event, method);
          if (!paths.contains(path)) {
            paths.add(path);
          }
        },
        method ->
            !method.isBridge()
                && !method.isSynthetic()
                && AnnotatedElementUtils.hasAnnotation(method, EventId.class));
    if (!event.isRecord()) {
      ReflectionUtils.doWithFields(
          event,
          field -> paths.add(fieldPath(operation, event, field)),
          field -> field.isAnnotationPresent(EventId.class));
    }
    paths.sort(null); // the reflection's order is unspecified: a stable message
    return paths;
  }

  private static String methodPath(String operation, Class<?> event, Method method) {
    if (!Modifier.isPublic(method.getModifiers())) {
      throw refusedMember(
          operation, event, "method", method.getName(), "is not public, so the key cannot call it");
    }
    if (method.getParameterCount() != 0
        || method.getReturnType() == void.class
        || Modifier.isStatic(method.getModifiers())) {
      throw refusedMember(
          operation,
          event,
          "method",
          method.getName(),
          "must be an instance method that takes nothing and returns the identity");
    }
    return method.getName() + "()";
  }

  private static String fieldPath(String operation, Class<?> event, Field field) {
    if (Modifier.isStatic(field.getModifiers())) {
      throw refusedMember(
          operation,
          event,
          "field",
          field.getName(),
          "is static: every event would have the same identity");
    }
    PropertyDescriptor property = BeanUtils.getPropertyDescriptor(event, field.getName());
    if (Modifier.isPublic(field.getModifiers())
        || (property != null && property.getReadMethod() != null)) {
      return field.getName();
    }
    throw refusedMember(
        operation, event, "field", field.getName(), "has no getter; add one, or mark the getter");
  }

  private static IllegalStateException refusedMember(
      String operation, Class<?> event, String kind, String name, String why) {
    return refused(
        operation,
        "takes " + event.getName() + ", whose @EventId " + kind + " " + name + " " + why);
  }

  private static IllegalStateException refused(String operation, String why) {
    return new IllegalStateException(
        "@Idempotent on the event listener " + operation + " names no key and " + why);
  }
}
