package dev.idem.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One RabbitMQ queue of the dedup-peers benchmark, filled before it is drained: {@link #publish}
 * sends messages with their ids (waiting for the broker's confirms), {@link #drain} consumes them
 * on several channels with manual acknowledgements until every published message is acknowledged,
 * requeueing every delivery whose handler threw. The queue is deleted on {@link #close()}.
 */
final class RabbitQueue implements AutoCloseable {

  /** Where RabbitMQ is unless {@code IDEM_RABBIT_URI} says otherwise. */
  static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";

  /** Unacknowledged deliveries each consumer may hold. */
  static final int PREFETCH = 20;

  private final Connection connection;
  private final ExecutorService handlers;
  private final String queue;
  private final int consumers;
  private long published;

  /** Handles one delivery; throwing requeues it. */
  @FunctionalInterface
  interface Handler {
    void handle(String messageId) throws Exception;
  }

  /**
   * What one drain measured.
   *
   * @param deliveries deliveries handled, requeued ones included
   * @param requeued deliveries whose handler threw
   * @param seconds from the first delivery to the last acknowledgement
   */
  record Drained(long deliveries, long requeued, double seconds) {}

  /** A fresh queue on the broker at {@code IDEM_RABBIT_URI}, drained by {@code consumers}. */
  RabbitQueue(int consumers) throws IOException, TimeoutException {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri());
    } catch (URISyntaxException | GeneralSecurityException e) {
      throw new IllegalArgumentException("bad IDEM_RABBIT_URI: " + uri(), e);
    }
    this.consumers = consumers;
    this.handlers = Executors.newFixedThreadPool(consumers);
    this.queue = "idem-bench-dedup-" + UUID.randomUUID();
    Connection opened = null;
    try {
      opened = factory.newConnection(handlers);
      try (Channel channel = opened.createChannel()) {
        // A crashed run's queue goes away by itself after ten idle minutes.
        channel.queueDeclare(queue, false, false, false, Map.of("x-expires", 600_000));
      }
    } catch (IOException | TimeoutException | RuntimeException e) {
      if (opened != null) {
        opened.abort();
      }
      handlers.shutdownNow();
      throw e;
    }
    this.connection = opened;
  }

  /** The broker's URI: {@code IDEM_RABBIT_URI}, or {@link #DEFAULT_URI}. */
  static String uri() {
    String uri = System.getenv("IDEM_RABBIT_URI");
    return uri == null || uri.isBlank() ? DEFAULT_URI : uri;
  }

  /** Publishes one message per id, in order, with the id as its AMQP message id. */
  void publish(List<String> ids) throws IOException, InterruptedException, TimeoutException {
    try (Channel channel = connection.createChannel()) {
      channel.confirmSelect();
      for (String id : ids) {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(id).build();
        channel.basicPublish("", queue, properties, new byte[0]);
      }
      channel.waitForConfirmsOrDie(TimeUnit.SECONDS.toMillis(60));
    }
    published += ids.size();
  }

  /**
   * Consumes until every message published is acknowledged: each ends with one ack, after any
   * number of requeues.
   *
   * @throws TimeoutException if that takes longer than {@code limit} seconds
   */
  Drained drain(Handler handler, long limit)
      throws IOException, InterruptedException, TimeoutException {
    LongAdder acked = new LongAdder();
    LongAdder requeued = new LongAdder();
    AtomicLong first = new AtomicLong();
    AtomicLong last = new AtomicLong();
    List<Channel> channels = new ArrayList<>();
    try {
      for (int i = 0; i < consumers; i++) {
        Channel channel = connection.createChannel();
        channels.add(channel);
        channel.basicQos(PREFETCH);
        channel.basicConsume(
            queue,
            false,
            (tag, delivery) -> {
              first.compareAndSet(0, System.nanoTime());
              long deliveryTag = delivery.getEnvelope().getDeliveryTag();
              boolean ok;
              try {
                handler.handle(delivery.getProperties().getMessageId());
                ok = true;
              } catch (Exception | Error e) {
                // An Error too: a delivery left neither acked nor requeued would stall the drain.
                ok = false;
              }
              last.set(System.nanoTime());
              if (ok) {
                channel.basicAck(deliveryTag, false);
                acked.increment();
              } else {
                channel.basicNack(deliveryTag, false, true);
                requeued.increment();
              }
            },
            tag -> {});
      }
      awaitAcknowledged(acked, limit);
    } finally {
      for (Channel channel : channels) {
        channel.close();
      }
    }
    return new Drained(
        acked.sum() + requeued.sum(), requeued.sum(), (last.get() - first.get()) / 1e9);
  }

  /** Handles a batch of deliveries; throwing counts as having handled none. */
  @FunctionalInterface
  interface BatchHandler {
    /**
     * Handles {@code messageIds} in order.
     *
     * @return the places of the ones to deliver again (requeued); the others are acknowledged
     */
    BitSet handle(List<String> messageIds) throws Exception;
  }

  /**
   * As {@link #drain}, with each consumer handling what it has received in batches of at most
   * {@code batch} deliveries (its prefetch): it takes the first delivery as it comes and whatever
   * else has arrived by then, requeues the deliveries the handler gives back (one nack each, or one
   * for a tail of them) and acknowledges the rest with one ack.
   */
  Drained drainBatches(BatchHandler handler, int batch, long limit)
      throws IOException, InterruptedException, TimeoutException {
    LongAdder acked = new LongAdder();
    LongAdder requeued = new LongAdder();
    AtomicLong first = new AtomicLong();
    AtomicLong last = new AtomicLong();
    List<Channel> channels = new ArrayList<>();
    ExecutorService workers = Executors.newFixedThreadPool(consumers);
    AtomicBoolean stop = new AtomicBoolean();
    try {
      for (int i = 0; i < consumers; i++) {
        Channel channel = connection.createChannel();
        channels.add(channel);
        channel.basicQos(batch);
        BlockingQueue<Delivery> received = new LinkedBlockingQueue<>();
        channel.basicConsume(queue, false, (tag, delivery) -> received.add(delivery), tag -> {});
        workers.execute(
            () -> {
              List<Delivery> taken = new ArrayList<>(batch);
              while (!stop.get()) {
                try {
                  Delivery head = received.poll(20, TimeUnit.MILLISECONDS);
                  if (head == null) {
                    continue;
                  }
                  first.compareAndSet(0, System.nanoTime());
                  taken.clear();
                  taken.add(head);
                  received.drainTo(taken, batch - 1);
                  List<String> ids =
                      taken.stream().map(d -> d.getProperties().getMessageId()).toList();
                  BitSet again;
                  try {
                    again = handler.handle(ids);
                  } catch (Exception | Error e) {
                    again = new BitSet();
                    again.set(0, ids.size());
                  }
                  last.set(System.nanoTime());
                  settle(channel, taken, again, acked, requeued);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }
            });
      }
      awaitAcknowledged(acked, limit);
    } finally {
      stop.set(true);
      workers.shutdown();
      workers.awaitTermination(10, TimeUnit.SECONDS);
      for (Channel channel : channels) {
        channel.close();
      }
    }
    return new Drained(
        acked.sum() + requeued.sum(), requeued.sum(), (last.get() - first.get()) / 1e9);
  }

  // Requeues each delivery of again, one nack each (none when the handled head of the batch is
  // followed only by requeued ones: one nack for them all), then acknowledges the others with one
  // ack, which covers every delivery of the channel up to its tag that is still unsettled.
  private static void settle(
      Channel channel, List<Delivery> taken, BitSet again, LongAdder acked, LongAdder requeued)
      throws IOException {
    int size = taken.size();
    again = again.get(0, size);
    int handledHead = again.nextSetBit(0) < 0 ? size : again.nextSetBit(0);
    boolean restRequeued = again.nextClearBit(handledHead) >= size;
    if (restRequeued) {
      if (handledHead > 0) {
        channel.basicAck(taken.get(handledHead - 1).getEnvelope().getDeliveryTag(), true);
        acked.add(handledHead);
      }
      if (handledHead < size) {
        channel.basicNack(taken.get(size - 1).getEnvelope().getDeliveryTag(), true, true);
        requeued.add(size - handledHead);
      }
      return;
    }
    for (int i = again.nextSetBit(0); i >= 0 && i < size; i = again.nextSetBit(i + 1)) {
      channel.basicNack(taken.get(i).getEnvelope().getDeliveryTag(), false, true);
      requeued.increment();
    }
    int lastHandled = size - 1;
    while (again.get(lastHandled)) {
      lastHandled--;
    }
    channel.basicAck(taken.get(lastHandled).getEnvelope().getDeliveryTag(), true);
    acked.add(size - again.cardinality());
  }

  // Until every message published is acknowledged, at most limit seconds.
  private void awaitAcknowledged(LongAdder acked, long limit)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limit);
    while (acked.sum() < published) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "%d of %d messages acknowledged after %d s".formatted(acked.sum(), published, limit));
      }
      Thread.sleep(20);
    }
  }

  @Override
  public void close() throws IOException, TimeoutException {
    try (Channel channel = connection.createChannel()) {
      channel.queueDelete(queue);
    } finally {
      connection.close();
      handlers.shutdownNow();
    }
  }
}
