package dev.idem.chaos;

import dev.idem.chaos.Ledger.KeyRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import tools.jackson.databind.JsonNode;

/**
 * Asks the shop, after the load, what became of what the tool sent: waits until the event
 * publications and the loyalty points have caught up, reads every answered order by its number and
 * every user's orders, and takes the audit as admin.
 */
final class ShopInspector {

  private static final long QUIET_WITHIN_MILLIS = 60_000;

  private final Sender sender;
  private final int instance;

  ShopInspector(Sender sender, int instance) {
    this.sender = sender;
    this.instance = instance;
  }

  ShopState inspect(Ledger ledger, int users) throws Exception {
    awaitQuiet();
    Map<String, String> answered = answeredOrders(ledger);
    List<String> ofUsers = new ArrayList<>();
    for (int i = 0; i < users; i++) {
      String user = LoadGenerator.user(i);
      JsonNode list = json(get("/api/orders", user, user));
      for (JsonNode order : list.values()) {
        ofUsers.add(order.get("orderNo").asString());
      }
    }
    JsonNode audit = json(get("/api/audit", "admin", ShopFleet.ADMIN_PASSWORD));
    List<String> violations = new ArrayList<>();
    audit.path("violations").values().forEach(v -> violations.add(v.asString()));
    Map<String, Long> counts = new HashMap<>();
    audit.path("counts").properties().forEach(e -> counts.put(e.getKey(), e.getValue().asLong()));
    return new ShopState(
        answered,
        ofUsers,
        violations,
        counts,
        audit.path("pendingMessages").asLong(),
        audit.path("pendingPoints").asLong());
  }

  /**
   * Polls the audit until nothing is in flight (every event publication completed, points arrived),
   * or gives up.
   */
  private void awaitQuiet() throws Exception {
    long deadline = System.currentTimeMillis() + QUIET_WITHIN_MILLIS;
    while (System.currentTimeMillis() < deadline) {
      JsonNode audit = json(get("/api/audit", "admin", ShopFleet.ADMIN_PASSWORD));
      if (audit.path("pendingMessages").asLong() == 0
          && audit.path("pendingPoints").asLong() == 0) {
        return;
      }
      Thread.sleep(500); // polling the shop's jobs, which run on their own timers
    }
  }

  private Map<String, String> answeredOrders(Ledger ledger) throws Exception {
    Map<String, String> owners = new HashMap<>();
    for (KeyRecord record : ledger.keys()) {
      if (record.operation() != Operation.ORDER) {
        continue;
      }
      for (Answer a : record.answers()) {
        if (a.success()) {
          Bodies.field(a.body(), "orderNo").ifPresent(o -> owners.put(o, record.user()));
        }
      }
    }
    Map<String, String> found = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(8, LoadGenerator.daemon("chaos-inspect"));
    try {
      List<Future<?>> reads = new ArrayList<>();
      Set<String> numbers = new TreeSet<>(owners.keySet());
      for (String orderNo : numbers) {
        String user = owners.get(orderNo);
        reads.add(
            pool.submit(
                () -> {
                  Answer a = get("/api/orders/" + orderNo, user, user);
                  if (a.status() == 200) {
                    found.put(orderNo, Bodies.field(a.body(), "status").orElse("?"));
                  } else if (a.status() != 404) {
                    throw new IllegalStateException("GET order " + orderNo + ": " + a.status());
                  }
                  return null;
                }));
      }
      for (Future<?> f : reads) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return found;
  }

  private Answer get(String path, String user, String password) throws InterruptedException {
    for (int attempt = 0; attempt < 5; attempt++) {
      Optional<Answer> a = sender.get(path, user, password, instance);
      if (a.isPresent() && a.get().status() < 500) {
        return a.get();
      }
      Thread.sleep(500); // the shop is busy or a connection was cut: ask again
    }
    throw new IllegalStateException("the shop does not answer GET " + path);
  }

  private static JsonNode json(Answer answer) {
    if (answer.status() != 200) {
      throw new IllegalStateException("unexpected " + answer.status() + ": " + answer.body());
    }
    return Bodies.tree(answer.body())
        .orElseThrow(() -> new IllegalStateException("not JSON: " + answer.body()));
  }
}
