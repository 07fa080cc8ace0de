package io.subetha.cxc.boot.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.dispatch.PassRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * Which registry each {@code @PassId} handler bean goes to (the one it names, else the only one
 * declared), what startup says when that is not one registry, and that stop unregisters them all,
 * skipping a registry already closed. A real bean factory over real registry files; no context.
 */
class PassHandlersTest {

    @TempDir Path temp;

    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    private PassRegistry calls;
    private PassRegistry jobs;

    @PassId(value = 7, registry = "calls")
    static final class Doubler implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return new byte[] {(byte) (args[0] * 2)};
        }
    }

    @PassId(value = 8, registry = "jobs")
    static final class Echo implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return args;
        }
    }

    @PassId(value = 9, registry = "jobs")
    static final class Empty implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return new byte[0];
        }
    }

    @PassId(5)
    static final class Unnamed implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return args;
        }
    }

    @PassId(value = 6, registry = "missing")
    static final class Lost implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return args;
        }
    }

    /** No {@code @PassId}: the application's own code registers it, or not. */
    static final class Plain implements PassHandler {
        @Override
        public byte[] handle(byte[] args) {
            return args;
        }
    }

    @BeforeEach
    void open() {
        calls =
                PassRegistry.openOrCreate(
                        temp.resolve("calls.passes"), new PassRegistry.Settings(4, 1, 16));
        jobs =
                PassRegistry.openOrCreate(
                        temp.resolve("jobs.passes"), new PassRegistry.Settings(4, 1, 16));
    }

    @AfterEach
    void close() {
        calls.close();
        jobs.close();
    }

    @Test
    void eachHandlerGoesToTheRegistryItNamesAndStopUnregistersThemAll() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("jobs", jobs);
        beans.registerSingleton("doubler", new Doubler());
        beans.registerSingleton("echo", new Echo());
        beans.registerSingleton("empty", new Empty());
        beans.registerSingleton("plain", new Plain());
        PassHandlers handlers = new PassHandlers(beans);

        handlers.start();
        assertThat(handlers.isRunning()).isTrue();
        assertThat(calls.registeredHere()).containsExactly(7L);
        assertThat(jobs.registeredHere()).containsExactlyInAnyOrder(8L, 9L);

        handlers.stop();
        assertThat(handlers.isRunning()).isFalse();
        assertThat(calls.registeredHere()).isEmpty();
        assertThat(jobs.registeredHere()).isEmpty();
        assertThat(calls.isRegistered(7)).isFalse();
    }

    @Test
    void aHandlerThatNamesNoRegistryGoesToTheOnlyOneDeclared() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("unnamed", new Unnamed());
        beans.registerSingleton("plain", new Plain());
        PassHandlers handlers = new PassHandlers(beans);
        handlers.start();
        assertThat(calls.registeredHere()).containsExactly(5L);
        handlers.stop();
        assertThat(calls.registeredHere()).isEmpty();
    }

    @Test
    void handlersWithoutPassIdAreLeftAlone() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("plain", new Plain());
        PassHandlers handlers = new PassHandlers(beans);
        handlers.start();
        assertThat(handlers.isRunning()).isTrue();
        assertThat(calls.registeredHere()).isEmpty();
        handlers.stop();
        assertThat(handlers.isRunning()).isFalse();
    }

    @Test
    void aHandlerNamingAnUndeclaredRegistryFailsStartNamingTheDeclaredOnes() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("jobs", jobs);
        beans.registerSingleton("lost", new Lost());
        PassHandlers handlers = new PassHandlers(beans);
        assertThatThrownBy(handlers::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "pass handler 'lost' names registry 'missing', but the declared pass"
                                + " registries are [calls, jobs]: declare it with"
                                + " cxc.pass-registries.missing.max-passes=64");
        assertThat(handlers.isRunning()).isFalse();
    }

    @Test
    void aHandlerNamingNoRegistryAmongTwoFailsStartAskingToNameOne() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("jobs", jobs);
        beans.registerSingleton("unnamed", new Unnamed());
        assertThatThrownBy(new PassHandlers(beans)::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "pass handler 'unnamed' (@PassId 5) names no registry, and 2 are declared"
                                + " [calls, jobs]: name one with @PassId(registry = ...)");
        assertThat(calls.registeredHere()).isEmpty();
        assertThat(jobs.registeredHere()).isEmpty();
    }

    @Test
    void aHandlerNamingNoRegistryWithNoneDeclaredFailsStartSayingHowToDeclareOne() {
        beans.registerSingleton("unnamed", new Unnamed());
        assertThatThrownBy(new PassHandlers(beans)::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "pass handler 'unnamed' (@PassId 5) names no registry, and none is"
                                + " declared: declare one, e.g."
                                + " cxc.pass-registries.calls.max-passes=64");
    }

    @Test
    void aRegistryClosedBeforeTheStopIsSkippedAndTheOthersAreStillUnregistered() {
        beans.registerSingleton("calls", calls);
        beans.registerSingleton("jobs", jobs);
        beans.registerSingleton("doubler", new Doubler());
        beans.registerSingleton("echo", new Echo());
        PassHandlers handlers = new PassHandlers(beans);
        handlers.start();
        jobs.close();

        handlers.stop();
        assertThat(handlers.isRunning()).isFalse();
        assertThat(calls.registeredHere()).isEmpty();
    }
}
