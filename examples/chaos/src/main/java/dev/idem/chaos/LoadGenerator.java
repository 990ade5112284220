package dev.idem.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The virtual users: each a thread of its own acting as one shop user, picking operations by the
 * scenario's mix until the time or the count runs out. User {@code i} sends to instance {@code i
 * mod n}; its duplicates go to the next instance, so that with several shops a repeat usually lands
 * on another process than the first.
 */
final class LoadGenerator {

  private static final String[] SKUS = {"BOOK", "MUG", "TSHIRT", "STICKER"};

  private final Scenario scenario;
  private final Sender sender;
  private final Ledger ledger;
  private final String gatewaySecret;
  private final List<String> cardPayments = new CopyOnWriteArrayList<>();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong operations = new AtomicLong();
  private final ExecutorService copies = Executors.newCachedThreadPool(daemon("chaos-copy"));
  private final ScheduledExecutorService later =
      Executors.newSingleThreadScheduledExecutor(daemon("chaos-later"));
  private volatile long endMillis;

  LoadGenerator(Scenario scenario, Sender sender, Ledger ledger, String gatewaySecret) {
    this.scenario = scenario;
    this.sender = sender;
    this.ledger = ledger;
    this.gatewaySecret = gatewaySecret;
  }

  /** The name of virtual user {@code i} (0-based); its password is the same. */
  static String user(int i) {
    return String.format("chaos%03d", i + 1);
  }

  /** Operations finished so far. */
  long operations() {
    return operations.get();
  }

  /** Runs the users as fast as they go for the scenario's duration or count of operations. */
  void run() throws InterruptedException {
    run(scenario.duration().isZero() ? Long.MAX_VALUE : scenario.duration().toMillis(), 0);
  }

  /**
   * Runs the users until the sender's clock reads {@code untilMillis}, or for the scenario's count
   * of operations, and returns when all have stopped: at {@code perSecond} operations per second in
   * all, each user on a schedule of its own (one behind starts at once), or as fast as they go when
   * it is 0.
   */
  void run(long untilMillis, double perSecond) throws InterruptedException {
    endMillis = untilMillis;
    long interval = perSecond > 0 ? (long) (1e9 * scenario.users() / perSecond) : 0;
    List<Thread> users = new ArrayList<>();
    for (int i = 0; i < scenario.users(); i++) {
      int index = i;
      Thread t = new Thread(() -> userLoop(index, interval), "chaos-user-" + i);
      t.setDaemon(true);
      users.add(t);
      t.start();
    }
    for (Thread t : users) {
      t.join();
    }
    // The repeats still waiting for their moment go out; then every copy is awaited.
    later.shutdown();
    later.awaitTermination(2, TimeUnit.MINUTES);
    copies.shutdown();
    copies.awaitTermination(2, TimeUnit.MINUTES);
  }

  private boolean more() {
    if (sender.now() >= endMillis) {
      return false;
    }
    return scenario.requests() == 0 || started.incrementAndGet() <= scenario.requests();
  }

  private void userLoop(int index, long intervalNanos) {
    VirtualUser me = new VirtualUser(user(index), index);
    long next =
        System.nanoTime()
            + (intervalNanos > 0 ? ThreadLocalRandom.current().nextLong(intervalNanos) : 0);
    try {
      while (true) {
        if (intervalNanos > 0) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          next += intervalNanos;
        }
        if (!more()) {
          return;
        }
        me.step();
        operations.incrementAndGet();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One user's state: its orders not known to be paid. */
  private final class VirtualUser {
    private final String name;
    private final int home;
    private final List<String> unpaid = new ArrayList<>();

    VirtualUser(String name, int home) {
      this.name = name;
      this.home = home;
    }

    void step() throws InterruptedException {
      Operation op = pick();
      if (op.payment() && unpaid.isEmpty()) {
        op = Operation.ORDER;
      }
      if (op == Operation.CALLBACK && cardPayments.isEmpty()) {
        op = Operation.ORDER;
      }
      switch (op) {
        case ORDER -> order();
        case CARD, WALLET -> pay(op);
        case CALLBACK -> callback();
      }
    }

    private Operation pick() {
      Scenario.Mix mix = scenario.mix();
      double r = ThreadLocalRandom.current().nextDouble() * mix.total();
      if ((r -= mix.orders()) < 0) {
        return Operation.ORDER;
      }
      if ((r -= mix.card()) < 0) {
        return Operation.CARD;
      }
      if ((r -= mix.wallet()) < 0) {
        return Operation.WALLET;
      }
      return Operation.CALLBACK;
    }

    private void order() throws InterruptedException {
      String key = UUID.randomUUID().toString();
      ledger.key(Operation.ORDER, name, key, Bodies.derivedOrderNo(name, key));
      Optional<Answer> answer = send(Operation.ORDER, key, "/api/orders", items());
      answer
          .filter(Answer::success)
          .flatMap(a -> Bodies.field(a.body(), "orderNo"))
          .ifPresent(unpaid::add);
    }

    private void pay(Operation method) throws InterruptedException {
      String orderNo = unpaid.get(ThreadLocalRandom.current().nextInt(unpaid.size()));
      String key = UUID.randomUUID().toString();
      ledger.key(method, name, key, orderNo);
      String body = "{\"method\":\"" + method.name() + "\"}";
      String path = "/api/orders/" + orderNo + "/payments";
      Optional<Answer> answer;
      if (otherKeyCopy()) {
        // Two clicks, two keys, the same order: a second payment runs beside the first.
        String second = UUID.randomUUID().toString();
        ledger.key(method, name, second, orderNo);
        ledger.duplicate();
        Future<Optional<Answer>> copy =
            copies.submit(() -> sender.keyed(method, name, second, path, body, home + 1));
        answer = sender.keyed(method, name, key, path, body, home);
        await(copy);
      } else {
        answer = send(method, key, path, body);
      }
      if (answer.isEmpty()) {
        return;
      }
      Answer a = answer.get();
      String status = Bodies.field(a.body(), "status").orElse("");
      if (a.success() && status.equals("SUCCESS") || a.body().contains("order-paid")) {
        unpaid.remove(orderNo);
      }
      if (a.success() && method == Operation.CARD) {
        Bodies.field(a.body(), "paymentNo").ifPresent(cardPayments::add);
      }
    }

    private boolean otherKeyCopy() {
      Scenario.Duplicates dup = scenario.duplicates();
      ThreadLocalRandom random = ThreadLocalRandom.current();
      return dup.otherKey() > 0
          && random.nextDouble() < dup.rate()
          && random.nextDouble() < dup.otherKey();
    }

    private void callback() throws InterruptedException {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      String paymentNo = cardPayments.get(random.nextInt(cardPayments.size()));
      // The body's status is only a hint to the shop, so the tool sends either.
      String hint = random.nextBoolean() ? "SUCCESS" : "FAILED";
      sender.callback(paymentNo, hint, gatewaySecret, home);
    }

    private Optional<Answer> send(Operation op, String key, String path, String body)
        throws InterruptedException {
      Scenario.Duplicates dup = scenario.duplicates();
      ThreadLocalRandom random = ThreadLocalRandom.current();
      if (random.nextDouble() >= dup.rate()) {
        return sender.keyed(op, name, key, path, body, home);
      }
      ledger.duplicate();
      if (random.nextDouble() < dup.concurrent()) {
        Future<Optional<Answer>> copy =
            copies.submit(() -> sender.keyed(op, name, key, path, body, home + 1));
        Optional<Answer> first = sender.keyed(op, name, key, path, body, home);
        await(copy);
        return first;
      }
      Optional<Answer> first = sender.keyed(op, name, key, path, body, home);
      // A client retrying later, after it got (or lost) the first answer. The user goes on
      // meanwhile, so that the pause does not hold its next operations back.
      long pause = random.nextLong(dup.maxDelay().toMillis() + 1);
      later.schedule(
          () -> copies.submit(() -> sender.keyed(op, name, key, path, body, home + 1)),
          pause,
          TimeUnit.MILLISECONDS);
      return first;
    }

    private void await(Future<Optional<Answer>> copy) throws InterruptedException {
      try {
        copy.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("a duplicate failed in the tool", e.getCause());
      }
    }

    private String items() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      int first = random.nextInt(SKUS.length);
      StringBuilder json = new StringBuilder("{\"items\":[");
      json.append(item(SKUS[first], random.nextInt(1, 4)));
      if (random.nextBoolean()) {
        json.append(',').append(item(SKUS[(first + 1) % SKUS.length], random.nextInt(1, 4)));
      }
      return json.append("]}").toString();
    }

    private String item(String sku, int quantity) {
      return "{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}";
    }
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
