package dev.idem.shop.audit;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/audit}: the invariants as JSON with a boolean {@code ok}. */
@RestController
class AuditController {

  private final Audit audit;

  AuditController(Audit audit) {
    this.audit = audit;
  }

  @GetMapping("/api/audit")
  AuditReport audit() {
    return audit.report();
  }
}
