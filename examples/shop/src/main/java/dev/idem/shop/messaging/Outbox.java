package dev.idem.shop.messaging;

import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The outbox table: messages written in the transaction of the change they announce. */
@Repository
public class Outbox {

  private final JdbcTemplate jdbc;

  Outbox(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** Adds a message; call it inside the transaction of the change. */
  public void add(Message message) {
    jdbc.update(
        "INSERT INTO outbox (event_id, topic, payload) VALUES (?, ?, ?)",
        message.id(),
        message.topic(),
        message.payload());
  }

  List<Message> unpublished(int limit) {
    return jdbc.query(
        "SELECT event_id, topic, payload FROM outbox WHERE published_at IS NULL"
            + " ORDER BY created_at, event_id",
        ps -> ps.setMaxRows(limit),
        (rs, i) -> new Message(rs.getString(1), rs.getString(2), rs.getString(3)));
  }

  void markPublished(String id) {
    jdbc.update(
        "UPDATE outbox SET published_at = CURRENT_TIMESTAMP WHERE event_id = ?"
            + " AND published_at IS NULL",
        id);
  }

  /** How many messages wait for the relay. */
  public int pending() {
    Integer n =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM outbox WHERE published_at IS NULL", Integer.class);
    return n == null ? 0 : n;
  }
}
