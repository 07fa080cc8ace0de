package io.subetha.cxc.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The pass id a {@link io.subetha.cxc.dispatch.PassHandler} bean serves: on the bean's class or on
 * its {@code @Bean} method. The starter registers the handler in a declared pass registry ({@code
 * cxc.pass-registries.<name>}) when the context starts, and unregisters it when it stops, so calls
 * from any process run in this one.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PassId {

    /** The pass id: any long but 0. */
    long value();

    /** The declared registry's name (its bean name); empty for the only one declared. */
    String registry() default "";
}
