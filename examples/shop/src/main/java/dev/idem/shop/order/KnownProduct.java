package dev.idem.shop.order;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The SKU names a product of the catalogue (null passes: {@code @NotBlank} reports it). */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = KnownProductValidator.class)
public @interface KnownProduct {

  String message() default "no such product";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
