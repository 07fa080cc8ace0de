package io.subetha.cxc.boot.autoconfigure;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The lines one class logs, caught by a real Logback appender on its logger, as {@code "LEVEL
 * message"} (with {@code " [exception suppressing ...]"} when one was logged with it): for tests
 * that assert what a lifecycle bean says, not that it called its logger.
 */
public final class LogLines implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogLines(Class<?> type) {
        logger = (Logger) LoggerFactory.getLogger(type);
        appender.start();
        logger.addAppender(appender);
    }

    /** Catches what {@code type}'s logger says from now until {@link #close()}. */
    public static LogLines of(Class<?> type) {
        return new LogLines(type);
    }

    public List<String> lines() {
        List<ILoggingEvent> events;
        synchronized (appender) { // the appender appends under its own lock
            events = List.copyOf(appender.list);
        }
        return events.stream()
                .map(
                        e ->
                                e.getLevel()
                                        + " "
                                        + e.getFormattedMessage()
                                        + (e.getThrowableProxy() == null
                                                ? ""
                                                : " [" + thrown(e.getThrowableProxy()) + "]"))
                .toList();
    }

    /** The class name, and {@code " suppressing "} each suppressed one's. */
    private static String thrown(IThrowableProxy proxy) {
        StringBuilder text = new StringBuilder(proxy.getClassName());
        for (IThrowableProxy suppressed : proxy.getSuppressed()) {
            text.append(" suppressing ").append(suppressed.getClassName());
        }
        return text.toString();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
