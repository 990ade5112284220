package dev.idem.spring.aop.internal;

import dev.idem.spring.EventId;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.BeanUtils;
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

  static boolean isListener(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, EventListener.class);
  }

  /**
   * The key expression of a listener that names none: the event's declared identity.
   *
   * @throws IllegalStateException when the listener takes no single event, or its event declares no
   *     readable identity, or more than one
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
    return "#p0." + paths.get(0);
  }

  // methods (a record component's annotation is on its accessor too), and a class's fields
  private static List<String> paths(String operation, Class<?> event) {
    List<String> paths = new ArrayList<>();
    for (Method method : event.getMethods()) {
      if (AnnotatedElementUtils.hasAnnotation(method, EventId.class)) {
        if (method.getParameterCount() != 0 || method.getReturnType() == void.class) {
          throw refused(
              operation,
              "takes "
                  + event.getName()
                  + ", whose @EventId method "
                  + method.getName()
                  + " must take nothing and return the identity");
        }
        paths.add(method.getName() + "()");
      }
    }
    if (!event.isRecord()) {
      ReflectionUtils.doWithFields(
          event,
          field -> paths.add(fieldPath(operation, event, field)),
          field -> field.isAnnotationPresent(EventId.class));
    }
    paths.sort(null); // the reflection's order is unspecified: a stable message
    return paths;
  }

  private static String fieldPath(String operation, Class<?> event, Field field) {
    PropertyDescriptor property = BeanUtils.getPropertyDescriptor(event, field.getName());
    if (Modifier.isPublic(field.getModifiers())
        || (property != null && property.getReadMethod() != null)) {
      return field.getName();
    }
    throw refused(
        operation,
        "takes "
            + event.getName()
            + ", whose @EventId field "
            + field.getName()
            + " has no getter; add one, or mark the method that reads it");
  }

  private static IllegalStateException refused(String operation, String why) {
    return new IllegalStateException(
        "@Idempotent on the event listener " + operation + " names no key and " + why);
  }
}
