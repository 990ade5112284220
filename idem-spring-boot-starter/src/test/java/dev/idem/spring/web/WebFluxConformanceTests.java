package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.blockhound.BlockHound;

/**
 * The HTTP conformance suite on Spring WebFlux, with BlockHound installed: a request that blocks an
 * event-loop thread anywhere (Idem, the store's client, the handlers) fails with a 500 and so fails
 * its row. Its own row: BlockHound at work.
 */
@SpringBootTest(
    classes = WebFluxTestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
abstract class WebFluxConformanceTests extends HttpConformanceTests {

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  @Test
  void blockHoundRefusesABlockingCallOnTheEventLoop() {
    assertThat(post("/blocking", null).statusCode()).isEqualTo(500);
  }

  // Waiters hold no thread here, and their claims are made on the store's threads, so claims are
  // counted; with more waiters than store threads (idem.async.threads, 16), every one has claimed
  // when there are as many claims as requests.
  @Override
  boolean allClaimed(String keyValue, int requests) {
    return controller.claims(keyValue) >= requests;
  }
}
