package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;

/**
 * The web page in headless Chromium (Debian's chromium and chromium-driver): log in, order, pay
 * with a real double click, and see one charge. Skipped when the browser is not installed.
 */
class ShopPageIT extends EndToEnd {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

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
    browser.get("http://127.0.0.1:" + port + "/");
    browser.findElement(By.id("user")).clear();
    browser.findElement(By.id("user")).sendKeys("bob");
    browser.findElement(By.id("password")).clear();
    browser.findElement(By.id("password")).sendKeys("bob");
    browser.findElement(By.id("login-button")).click();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.findElement(By.id("shop")).isDisplayed());
    List<String> before = orderNumbers();
    BigDecimal balanceBefore = balance();

    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              WebElement quantity = browser.findElement(By.cssSelector("input[data-sku='MUG']"));
              quantity.clear();
              quantity.sendKeys("2");
              return "2".equals(quantity.getDomProperty("value"));
            });
    browser.findElement(By.id("order")).click();
    String orderNo =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> orderNumbers().stream().filter(o -> !before.contains(o)).findFirst(),
                found -> found.isPresent())
            .orElseThrow();

    By pay = By.cssSelector("button[data-pay='" + orderNo + ":WALLET:once']");
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
    await().atMost(Duration.ofSeconds(20)).until(() -> paymentRequestsLogged(orderNo) == 2);
    assertThat(count("SELECT COUNT(*) FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(balance()).isEqualByComparingTo(balanceBefore.subtract(new BigDecimal("19.00")));
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.findElement(By.id("audit-verdict")).getText().startsWith("ok"));
  }

  private long paymentRequestsLogged(String orderNo) {
    return browser.findElements(By.cssSelector("#log li")).stream()
        .filter(li -> li.getText().contains("/api/orders/" + orderNo + "/payments"))
        .count();
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
