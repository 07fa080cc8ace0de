/**
 * Auto-configuration of cxc for Spring Boot: the {@code cxc.*} properties ({@link
 * io.subetha.cxc.boot.autoconfigure.CxcProperties}, mapped to core's settings in one place), the
 * primitives declared by name, and one auto-configuration per concern (the election and its ticker,
 * {@code @LeaderOnly}, the actuator endpoint, health, meters, dispatch, Spring Integration). The
 * parts they make live beside this package: {@code boot.ticker}, {@code boot.aop}, {@code
 * boot.liveness}, {@code boot.scheduling}, {@code boot.actuate.*}, {@code boot.dispatch}, {@code
 * boot.integration}.
 */
@NullMarked
package io.subetha.cxc.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
