package dev.idem.spring.web.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Beans looked up at first use and kept, for the beans that are fixed once the context runs (the
 * request mappings): looking them up took a sixth of a filter's time per request. An empty list is
 * not kept, so a request served before the beans exist does not leave every later one without them.
 */
public final class ResolvedBeans<T> {

  private final ObjectProvider<T> provider;
  private volatile @Nullable List<T> resolved;

  public ResolvedBeans(ObjectProvider<T> provider) {
    this.provider = provider;
  }

  /** The beans, in order. */
  public List<T> get() {
    List<T> list = resolved;
    if (list == null) {
      list = provider.orderedStream().toList();
      if (!list.isEmpty()) {
        resolved = list;
      }
    }
    return list;
  }
}
