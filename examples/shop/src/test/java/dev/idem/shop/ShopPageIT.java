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
 * and the retry button; each time one charge. Skipped when the browser is not installed.
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
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void aPersonLogsInOrdersAndDoubleClicksPayAndIsChargedOnce() {
    logIn("bob");
    BigDecimal balanceBefore = balance();
    String orderNo = orderOnThePage("MUG", 2);

    By pay = payButton(orderNo, "WALLET", "once");
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              new Actions(browser).doubleClick(browser.findElement(pay)).perform();
              return true;
            });

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> bob.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    // Both clicks went out, each with its own key: the server, not the page, kept it to one charge.
    await().atMost(Duration.ofSeconds(20)).until(() -> paymentLog(orderNo).size() == 2);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(balance()).isEqualByComparingTo(balanceBefore.subtract(new BigDecimal("19.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    awaitAuditOkOnThePage();
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
    hold.release();

    List<String> lines =
        await().atMost(Duration.ofSeconds(30)).until(() -> paymentLog(orderNo), l -> !l.isEmpty());
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("re-sent after reload").contains("SUCCESS");
    assertThat(storage("pending")).isEqualTo("{}");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> bob.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT COUNT(*) FROM gateway_charges WHERE order_no = ? AND outcome = 'APPROVED'",
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
    browser.findElement(By.id("order")).click();
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> orderNumbers().stream().filter(o -> !before.contains(o)).findFirst(),
            found -> found.isPresent())
        .orElseThrow();
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

  private List<String> orderNumbers() {
    List<String> numbers = new ArrayList<>();
    bob.get("/api/orders").json().forEach(o -> numbers.add(o.path("orderNo").asString()));
    return numbers;
  }

  private BigDecimal balance() {
    return bob.get("/api/accounts/me").json().path("balance").decimalValue();
  }
}
