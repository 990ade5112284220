/** The JDBC backend: the article's unique-index strategy on PostgreSQL, MariaDB/MySQL and H2. */
@NullMarked
package dev.idem.jdbc;

import org.jspecify.annotations.NullMarked;
