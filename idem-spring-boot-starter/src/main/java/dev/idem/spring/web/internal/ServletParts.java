package dev.idem.spring.web.internal;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The parts of a multipart request on a servlet container, read through the container itself: it
 * parses the body once (with its own limits, spooling large parts to disk) and serves the same
 * parts to the handler afterwards, so the filter reads no body of its own and the handler gets its
 * parts.
 */
public final class ServletParts {

  private ServletParts() {}

  /** The parts as the fingerprint sees them, or null when their bytes are over {@code maxBytes}. */
  public static @Nullable List<RequestFingerprint.Part> of(
      HttpServletRequest request, long maxBytes) throws IOException, ServletException {
    List<RequestFingerprint.Part> parts = new ArrayList<>();
    long total = 0;
    for (Part part : request.getParts()) {
      total += part.getSize();
      if (total > maxBytes) {
        return null;
      }
      MessageDigest digest = RequestFingerprint.partDigest();
      try (InputStream in = new DigestInputStream(part.getInputStream(), digest)) {
        in.transferTo(OutputStream.nullOutputStream());
      }
      parts.add(
          new RequestFingerprint.Part(
              part.getName(), part.getSubmittedFileName(), part.getContentType(), digest.digest()));
    }
    return parts;
  }

  /** Whether {@code e}, from reading the parts, says they are over the container's size limits. */
  public static boolean overLimit(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      // Tomcat's and Jetty's own exceptions, which no API of the servlet spec names
      String name = t.getClass().getSimpleName();
      if (name.contains("SizeLimitExceeded") || name.equals("SizeException")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
