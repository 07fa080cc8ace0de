package io.subetha.cxc.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The messages a class's {@code java.util.logging} logger publishes during each test:
 * {@code @RegisterExtension final LogCapture log = new LogCapture(Subject.class);} then {@link
 * #messages}.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    /** The messages published since the test began, in order. */
    public final List<String> messages = new CopyOnWriteArrayList<>();

    private final Logger logger;
    private final Handler handler =
            new Handler() {
                @Override
                public void publish(LogRecord record) {
                    messages.add(record.getMessage());
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };

    public LogCapture(Class<?> logging) {
        this.logger = Logger.getLogger(logging.getName());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        messages.clear();
        logger.addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.removeHandler(handler);
    }
}
