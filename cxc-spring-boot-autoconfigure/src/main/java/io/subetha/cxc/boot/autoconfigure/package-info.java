/**
 * Auto-configuration of cxc for Spring Boot: {@code cxc.*} properties, the shared leader election
 * and its ticker, {@code @LeaderOnly}, and, when present, the {@code cxc} actuator endpoint, health
 * contributor and Micrometer meters. One auto-configuration per concern.
 */
@NullMarked
package io.subetha.cxc.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
