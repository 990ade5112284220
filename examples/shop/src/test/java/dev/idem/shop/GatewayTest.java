package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.shop.ShopClient.Answer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The fake gateway's API as a merchant meets it: one charge per Idempotency-Key, never more. */
class GatewayTest extends EndToEnd {

  @Autowired ShopProperties properties;

  @Test
  void aRepeatedKeyIsOneChargeAndAnotherKeyForThePaymentIsAnother() {
    ShopClient merchant = ShopClient.anonymous(port);
    String paymentNo = "PAY-gw-" + key().substring(0, 8);
    String body = body(paymentNo, "ORD-gw-" + key().substring(0, 8), "3.00");
    String first = key();

    Answer once = charge(merchant, body, first);
    Answer again = charge(merchant, body, first);
    Answer other = charge(merchant, body, key());

    assertThat(once.status()).isEqualTo(200);
    assertThat(once.text("outcome")).isEqualTo("APPROVED");
    assertThat(again.text("outcome")).isEqualTo("APPROVED");
    assertThat(other.status()).isEqualTo(200);
    // the gateway keeps its word per key: the merchant that sends two keys pays twice
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE payment_no = ?", paymentNo))
        .isEqualTo(2);
    assertThat(
            count(
                "SELECT COUNT(*) FROM gateway_requests WHERE payment_no = ? AND request_key = ?",
                paymentNo,
                first))
        .isEqualTo(1);
    jdbc.update("DELETE FROM gateway_requests WHERE payment_no = ?", paymentNo);
  }

  @Test
  void aChargeWithoutTheSecretOrAKeyOrAnAmountIsRefusedAndRecordsNothing() {
    ShopClient merchant = ShopClient.anonymous(port);
    String paymentNo = "PAY-gw-" + key().substring(0, 8);
    String body = body(paymentNo, "ORD-x", "3.00");

    Answer noSecret =
        merchant.post("/gateway/charges", body, "Idempotency-Key", key(), "X-Gateway-Secret", "no");
    Answer noKey =
        merchant.post("/gateway/charges", body, "X-Gateway-Secret", properties.gateway().secret());
    Answer noAmount =
        charge(merchant, "{\"paymentNo\":\"" + paymentNo + "\",\"orderNo\":\"ORD-x\"}", key());

    assertThat(noSecret.status()).isEqualTo(401);
    assertThat(noKey.status()).isEqualTo(400);
    assertThat(noAmount.status()).isEqualTo(400);
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE payment_no = ?", paymentNo))
        .isZero();
  }

  @Test
  void aKeyReusedForAnotherChargeIsRefusedNotAnsweredWithTheFirst() {
    ShopClient merchant = ShopClient.anonymous(port);
    String paymentNo = "PAY-gw-" + key().substring(0, 8);
    String key = key();

    Answer first = charge(merchant, body(paymentNo, "ORD-a", "3.00"), key);
    Answer otherAmount = charge(merchant, body(paymentNo, "ORD-a", "4.00"), key);
    Answer otherPayment = charge(merchant, body(paymentNo + "x", "ORD-a", "3.00"), key);
    Answer same = charge(merchant, body(paymentNo, "ORD-a", "3.0"), key);

    assertThat(first.status()).isEqualTo(200);
    assertThat(otherAmount.status()).isEqualTo(422);
    assertThat(otherPayment.status()).isEqualTo(422);
    assertThat(same.status()).isEqualTo(200);
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE request_key = ?", key))
        .isEqualTo(1);
    jdbc.update("DELETE FROM gateway_requests WHERE request_key = ?", key);
  }

  @Test
  void referencesAndAmountsTheGatewayCannotKeepAreRefusedBeforeAnythingIsRecorded() {
    ShopClient merchant = ShopClient.anonymous(port);
    String paymentNo = "PAY-gw-" + key().substring(0, 8);

    assertThat(charge(merchant, body(paymentNo, "ORD-a", "0.001"), key()).status()).isEqualTo(400);
    assertThat(charge(merchant, body(paymentNo, "ORD-a", "-1"), key()).status()).isEqualTo(400);
    assertThat(charge(merchant, body(paymentNo, "ORD-a", "1e12"), key()).status()).isEqualTo(400);
    assertThat(charge(merchant, body(paymentNo + "\\\"", "ORD-a", "1"), key()).status())
        .isEqualTo(400);
    assertThat(charge(merchant, body("P".repeat(65), "ORD-a", "1"), key()).status()).isEqualTo(400);
    assertThat(charge(merchant, body(paymentNo, "ORD-a", "1"), "k".repeat(256)).status())
        .isEqualTo(400);
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE payment_no LIKE ?", "PAY-gw-%"))
        .isZero();
  }

  private static String body(String paymentNo, String orderNo, String amount) {
    return "{\"paymentNo\":\""
        + paymentNo
        + "\",\"orderNo\":\""
        + orderNo
        + "\",\"amount\":"
        + amount
        + "}";
  }

  private Answer charge(ShopClient merchant, String body, String key) {
    return merchant.post(
        "/gateway/charges",
        body,
        "Idempotency-Key",
        key,
        "X-Gateway-Secret",
        properties.gateway().secret());
  }
}
