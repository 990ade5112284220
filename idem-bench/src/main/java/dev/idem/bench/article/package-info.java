/**
 * The source article's own code, ported to plain Java as the peers Idem is measured against: its
 * token service ({@link dev.idem.bench.article.ArticleTokenService} as written, {@link
 * dev.idem.bench.article.CheckThenDeleteTokenService} as its flow diagram draws it, {@link
 * dev.idem.bench.article.FixedTokenService} as it should be) and its Redisson-lock pay flow ({@link
 * dev.idem.bench.article.ArticleLockPayment}). Its version-retry deduction ({@code
 * AccountService.deduct}, three tries) is ported once, in {@code HotAccountScenarios.article()} of
 * the bench package.
 *
 * <p>The ports keep the article's logic, its Redis and SQL calls and their order; Spring's {@code
 * RedisTemplate} becomes Lettuce (the driver {@code RedisTemplate} runs on by default), and MyBatis
 * mappers become plain JDBC statements. Each class says which snippet it ports and what is wrong
 * with it, if anything.
 */
package dev.idem.bench.article;
