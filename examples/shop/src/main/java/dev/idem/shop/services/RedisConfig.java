package dev.idem.shop.services;

import io.lettuce.core.RedisClient;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/** Profile services: the Lettuce client the starter builds Idem's Redis store on. */
@Configuration
@Profile("services")
class RedisConfig {

  @Bean(destroyMethod = "shutdown")
  RedisClient redisClient(@Value("${shop.redis.url}") String url) {
    return RedisClient.create(url);
  }
}
