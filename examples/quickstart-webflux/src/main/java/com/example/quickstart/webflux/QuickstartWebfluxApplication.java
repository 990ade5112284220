package com.example.quickstart.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class QuickstartWebfluxApplication {
  public static void main(String[] args) {
    SpringApplication.run(QuickstartWebfluxApplication.class, args);
  }
}
