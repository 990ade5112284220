package dev.idem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;

/** Building and shutting down the peers of a comparison, so that a failure leaks none of them. */
final class Peers {

  private Peers() {}

  /**
   * Closes every one of {@code resources}, even when some fail; throws the first failure with the
   * others suppressed.
   */
  static void closeAll(List<? extends AutoCloseable> resources) throws Exception {
    Exception first = null;
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * Builds peers in order; when one fails, the ones built before it are shut down ({@code shutdown}
   * names each one's shutdown).
   */
  static <P> List<P> build(List<Callable<P>> builders, Function<P, AutoCloseable> shutdown)
      throws Exception {
    List<P> built = new ArrayList<>();
    try {
      for (Callable<P> builder : builders) {
        built.add(builder.call());
      }
      return built;
    } catch (Exception e) {
      try {
        closeAll(built.stream().map(shutdown).toList());
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }
}
