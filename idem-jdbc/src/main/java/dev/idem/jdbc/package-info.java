/** The JDBC backend: the article's unique-index strategy on PostgreSQL, MariaDB/MySQL and H2. */
package dev.idem.jdbc;
