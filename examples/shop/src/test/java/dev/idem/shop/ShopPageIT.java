package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.gateway.GatewayHold;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The web page in headless Chromium (Debian's chromium and chromium-driver): log in, order, and pay
 * with a real double click, with a reload while the payment is in flight, and with a network retry
 * and the retry button; each time one charge. A request another user left pending is not sent.
 * Skipped when the browser is not installed.
 */
class ShopPageIT extends EndToEnd {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  @Autowired FakeGateway gateway;

  private WebDriver browser;

  @BeforeEach
  void openBrowser() {
    Assumptions.assumeTrue(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
        "needs Debian's chromium and chromium-driver");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(DRIVER.toString()))
            .build();
    browser = new ChromeDriver(service, options);
  }

  @AfterEach
  void closeBrowser() {
    // A hold queued by a test that failed before its charge came would hold the next test's.
    gateway.dropPendingHolds();
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void aRealDoubleClickOnOrderPlacesOneOrder() {
    logIn("bob");
    List<String> before = orderNumbers();
    int stockBefore = stock("MUG");
    setQuantity("MUG", 2);

    new Actions(browser).doubleClick(browser.findElement(By.id("order"))).perform();

    await().atMost(Duration.ofSeconds(20)).until(() -> orderNumbers().size() > before.size());
    awaitAuditOkOnThePage();
    assertThat(orderNumbers()).hasSize(before.size() + 1);
    assertThat(stock("MUG")).isEqualTo(stockBefore - 2);
    // the page logs a request when its answer has come, after the order's row was committed
    await().atMost(Duration.ofSeconds(20)).until(() -> !logLines("POST /api/orders key").isEmpty());
    assertThat(logLines("POST /api/orders key")).hasSize(1);
    // The order is placed: its intent is over, the form is cleared and the next order has a new
    // key. The page redraws the form, so the field is looked up again until it reads back.
    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreExceptionsInstanceOf(StaleElementReferenceException.class)
        .until(
            () ->
                browser
                    .findElement(By.cssSelector("input[data-sku='MUG']"))
                    .getDomProperty("value"),
            "0"::equals);
  }

  @Test
  void aRealDoubleClickOnEachPayButtonChargesOnce() {
    logIn("bob");
    BigDecimal balanceBefore = balance();
    String byWallet = orderOnThePage("MUG", 2);
    String byCard = orderOnThePage("STICKER", 1);

    doubleClick(payButton(byWallet, "WALLET", "once"));
    doubleClick(payButton(byCard, "CARD", "once"));

    for (String orderNo : List.of(byWallet, byCard)) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> bob.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
      assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
          .isEqualTo(1);
    }
    awaitAuditOkOnThePage();
    // The button was disabled while its request ran: the second click sent nothing. The page logs
    // a payment when its answer has come, after the order was marked paid.
    for (String orderNo : List.of(byWallet, byCard)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> !paymentLog(orderNo).isEmpty());
    }
    assertThat(paymentLog(byWallet)).hasSize(1);
    assertThat(paymentLog(byCard)).hasSize(1);
    assertThat(balance()).isEqualByComparingTo(balanceBefore.subtract(new BigDecimal("19.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", byWallet))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT COUNT(*) FROM gateway_requests WHERE order_no = ? AND outcome = 'APPROVED'",
                byCard))
        .isEqualTo(1);
  }

  @Test
  void anErrorShowsTheProblemsTitleAndDetail() {
    logIn("bob");
    setQuantity("MUG", 999);

    browser.findElement(By.id("order")).click();

    String notice =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> browser.findElement(By.id("notice")).getText(), t -> !t.isEmpty());
    assertThat(notice).contains("MUG");
    assertThat(logLines("POST /api/orders key").get(0))
        .contains("409")
        .contains(notice)
        .contains("refused")
        .doesNotContain("done once");
  }

  @Test
  void aReloadWhileThePaymentIsInFlightSendsItAgainWithItsKeyAndChargesOnce() throws Exception {
    logIn("bob");
    String orderNo = orderOnThePage("STICKER", 3);
    GatewayHold hold = gateway.holdNextCharge();

    click(payButton(orderNo, "CARD", "once"));
    assertThat(hold.awaitCharge(Duration.ofSeconds(20))).isTrue();
    // The charge is held at the gateway: the request is surely in flight as the page reloads.
    browser.navigate().refresh();
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> browser.findElement(By.id("shop")).isDisplayed());
    // The answer comes once the page is back: the first request's flow settles the payment, and
    // the reloaded page's request with the same key waits for it and gets its answer.
    hold.release();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                jdbc.queryForObject(
                    "SELECT status FROM payment_records WHERE order_no = ?", String.class, orderNo),
            "SUCCESS"::equals);

    List<String> lines =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> paymentLog(orderNo),
                l -> !l.isEmpty() && l.get(0).contains("re-sent after reload"));
    assertThat(lines.get(0)).contains("SUCCESS").contains("order " + orderNo);
    // the request the reload cut off shows as unanswered, if the page logged it before it went
    assertThat(lines.subList(1, lines.size())).allSatisfy(l -> assertThat(l).contains("no answer"));
    assertThat(logLines("POST /api/orders key"))
        .as("the log from before the reload is still shown")
        .isNotEmpty();
    assertThat(storage("pending")).isEqualTo("{}");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> bob.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT COUNT(*) FROM gateway_requests WHERE order_no = ? AND outcome = 'APPROVED'",
                orderNo))
        .isEqualTo(1);
    awaitAuditOkOnThePage();
  }

  @Test
  void aNetworkRetryAndTheRetryButtonSendTheSameKeyAgainAndChargeOnce() {
    logIn("bob");
    String orderNo = orderOnThePage("STICKER", 2);
    BigDecimal balanceBefore = balance();

    click(payButton(orderNo, "WALLET", "retry"));
    await().atMost(Duration.ofSeconds(20)).until(() -> paymentLog(orderNo).size() == 2);
    click(By.id("retry-last"));
    List<String> lines =
        await().atMost(Duration.ofSeconds(20)).until(() -> paymentLog(orderNo), l -> l.size() == 3);

    // Newest first: the retry button's request, then the page's network retry, then the first.
    assertThat(lines.get(0)).contains("[retry]").contains("replayed");
    assertThat(lines.get(1)).contains("[network retry]").contains("replayed");
    assertThat(lines.get(2)).contains("201 SUCCESS").doesNotContain("replayed");
    assertThat(balance()).isEqualByComparingTo(balanceBefore.subtract(new BigDecimal("4.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    awaitAuditOkOnThePage();
  }

  @Test
  void aRequestLeftPendingByAnotherUserIsDroppedNotSentWithTheseCredentials() {
    String alicesOrder = alice.order("STICKER", 1);
    logIn("bob");
    // What alice's unanswered payment leaves in the tab's storage, found by bob's session.
    ((JavascriptExecutor) browser)
        .executeScript(
            "window.sessionStorage.setItem('pending', JSON.stringify({'alices-key':"
                + " {path: '/api/orders/' + arguments[0] + '/payments', body: {method: 'WALLET'},"
                + " user: 'alice'}}));",
            alicesOrder);
    browser.navigate().refresh();
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> browser.findElement(By.id("shop")).isDisplayed());

    await().atMost(Duration.ofSeconds(20)).until(() -> storage("pending").equals("{}"));
    assertThat(paymentLog(alicesOrder)).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", alicesOrder))
        .isZero();
  }

  private void logIn(String user) {
    browser.get("http://127.0.0.1:" + port + "/");
    browser.findElement(By.id("user")).clear();
    browser.findElement(By.id("user")).sendKeys(user);
    browser.findElement(By.id("password")).clear();
    browser.findElement(By.id("password")).sendKeys(user);
    browser.findElement(By.id("login-button")).click();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.findElement(By.id("shop")).isDisplayed());
  }

  // Orders on the page and answers the new order's number.
  private String orderOnThePage(String sku, int quantity) {
    List<String> before = orderNumbers();
    setQuantity(sku, quantity);
    browser.findElement(By.id("order")).click();
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> orderNumbers().stream().filter(o -> !before.contains(o)).findFirst(),
            found -> found.isPresent())
        .orElseThrow();
  }

  // The products table is redrawn every few seconds: type into the input that is there.
  private void setQuantity(String sku, int quantity) {
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              WebElement input =
                  browser.findElement(By.cssSelector("input[data-sku='" + sku + "']"));
              input.clear();
              input.sendKeys(String.valueOf(quantity));
              return String.valueOf(quantity).equals(input.getDomProperty("value"));
            });
  }

  private static By payButton(String orderNo, String method, String mode) {
    return By.cssSelector("button[data-pay='" + orderNo + ":" + method + ":" + mode + "']");
  }

  // The order table is redrawn every few seconds: click what is there when it is there.
  private void click(By button) {
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              browser.findElement(button).click();
              return true;
            });
  }

  // Once, with the mouse, as a person does: the two clicks of one double click. A button the page
  // redrew between finding it and clicking it is found again: the pointer's move onto a stale
  // button fails before either click is sent.
  private void doubleClick(By button) {
    await()
        .atMost(Duration.ofSeconds(20))
        // one matcher for both: each ignoreExceptions... call replaces the one before
        .ignoreExceptionsMatching(
            e -> e instanceof StaleElementReferenceException || e instanceof NoSuchElementException)
        .until(
            () -> {
              new Actions(browser).doubleClick(browser.findElement(button)).perform();
              return true;
            });
  }

  private String storage(String item) {
    return String.valueOf(
        ((JavascriptExecutor) browser)
            .executeScript("return window.sessionStorage.getItem(arguments[0]);", item));
  }

  private void awaitAuditOkOnThePage() {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.findElement(By.id("audit-verdict")).getText().startsWith("ok"));
  }

  // The page's request log lines for the order's payments, newest first.
  private List<String> paymentLog(String orderNo) {
    return browser.findElements(By.cssSelector("#log li")).stream()
        .map(WebElement::getText)
        .filter(text -> text.contains("/api/orders/" + orderNo + "/payments"))
        .toList();
  }

  private List<String> logLines(String start) {
    return browser.findElements(By.cssSelector("#log li")).stream()
        .map(WebElement::getText)
        .filter(text -> text.startsWith(start))
        .toList();
  }

  private int stock(String sku) {
    for (var p : bob.get("/api/products").json()) {
      if (p.path("sku").asString().equals(sku)) {
        return p.path("stock").asInt();
      }
    }
    throw new AssertionError("no product " + sku);
  }

  private List<String> orderNumbers() {
    List<String> numbers = new ArrayList<>();
    bob.get("/api/orders").json().forEach(o -> numbers.add(o.path("orderNo").asString()));
    return numbers;
  }

  private BigDecimal balance() {
    return bob.get("/api/accounts/me").json().path("balance").decimalValue();
  }
}
