package io.subetha.cxc.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Keeps a Spring test context's cxc apart from the application running on the same host. Without
 * it, a {@code @SpringBootTest} joins the election in the application's own directory ({@code
 * /dev/shm/cxc-<uid>/<spring.application.name>}) and, having the lower PID or simply being first,
 * can take leadership from the real application: its {@code @LeaderOnly} jobs then run in the test
 * and not in the application.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureCxc(leadership = Leadership.ALWAYS)
 * class NightlyReportTest { ... }
 * }</pre>
 *
 * <p>Each test context (a cached one included) gets its own directory, deleted when the context
 * closes; the backend is always {@code local} (a test never joins a ZooKeeper election).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureCxc {

    /** Where the test context's cxc files live. */
    Directory directory() default Directory.TEMP;

    /** How the test context's {@code @LeaderOnly} methods decide. */
    Leadership leadership() default Leadership.ELECT;

    /** Where the test context's cxc files live. */
    enum Directory {
        /** A new temporary directory per test context, deleted when the context closes. */
        TEMP,
        /** {@code cxc.directory} as configured (or its default): shared with the application. */
        CONFIGURED
    }

    /** How {@code @LeaderOnly} methods decide. */
    enum Leadership {
        /**
         * A real election in the test context's directory: alone in a {@link Directory#TEMP}
         * directory, this context leads within its first tick, with the ticker, heartbeat table,
         * watchdogs, events, endpoint and health as in production.
         */
        ELECT,
        /**
         * {@code @LeaderOnly} methods always run, under term 1; a {@code LeadershipGainedEvent} is
         * published at start and a {@code LeadershipLostEvent} at stop. In a {@link Directory#TEMP}
         * directory the election still runs beneath this fixed answer, so the heartbeat table and
         * every declared primitive work as in production; in the {@link Directory#CONFIGURED} one
         * this context takes no part in the application's election ({@code
         * cxc.leader.enabled=false}), and a declared watchdog is refused, naming this annotation.
         */
        ALWAYS,
        /** {@code @LeaderOnly} methods are always skipped (or refused in THROW mode); as ALWAYS. */
        NEVER
    }
}
