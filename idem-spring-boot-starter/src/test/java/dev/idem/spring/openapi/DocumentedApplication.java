package dev.idem.spring.openapi;

import dev.idem.spring.Idempotent;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application whose OpenAPI document is read: one handler of each kind the filter tells apart.
 */
@SpringBootConfiguration
// Spring Data Redis is on the test class path; this application keeps its records in memory.
@EnableAutoConfiguration(
    excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@Import(DocumentedApplication.Payments.class)
class DocumentedApplication {

  record Payment(String order, long amount) {}

  @RestController
  static class Payments {

    @Idempotent
    @PostMapping("/payments")
    Payment pay(@RequestBody Payment payment) {
      return payment;
    }

    @Idempotent(required = false)
    @PostMapping("/notes")
    Payment note(@RequestBody Payment payment) {
      return payment;
    }

    @GetMapping("/payments/{id}")
    Payment payment(@PathVariable String id) {
      return new Payment(id, 1);
    }

    @Idempotent
    @PutMapping("/payments/{id}")
    Payment replace(@PathVariable String id, @RequestBody Payment payment) {
      return payment;
    }

    /** Guarded through {@code idem.http.paths}, so on POST and not on GET. */
    @RequestMapping(
        path = "/carts/{id}",
        method = {RequestMethod.GET, RequestMethod.POST})
    Payment cart(@PathVariable String id) {
      return new Payment(id, 2);
    }
  }
}
