package io.subetha.cxc.boot.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.CxcEventPublisher;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.autoconfigure.CxcEventLogAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What a listener or a publisher cannot do is refused saying what is wrong and what to do: a log
 * that is not declared, a parameter the log's events are not, a signature that is not (event) or
 * (event, long sequence), and a second live reader under one name (two copies with one copy name).
 */
class EventLogListenerRefusalsTest {

    @TempDir Path temp;

    static class OnUndeclared {
        @CxcEventListener(log = "ordrs")
        void on(long event) {}
    }

    static class WrongType {
        @CxcEventListener(log = "orders")
        void on(String event) {}
    }

    static class WrongSignature {
        @CxcEventListener(log = "orders")
        void on(long event, String sequence) {}
    }

    static class SameId {
        @CxcEventListener(log = "orders", id = "tally")
        void one(long event) {}

        @CxcEventListener(log = "orders", id = "tally")
        void other(long event) {}
    }

    @Test
    void twoListenersOfOneCopyUnderOneIdAreRefusedNamingBoth() {
        runner().withBean(SameId.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .hasMessageContaining("SameId.one")
                                        .hasMessageContaining("SameId.other")
                                        .hasMessageContaining(
                                                "give each its own id (@CxcEventListener(id ="));
    }

    static class Fine {
        @CxcEventListener(log = "orders")
        void on(Long event, long sequence) {}
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcEventLogAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.event-logs.orders.capacity=16");
    }

    @Test
    void aListenerOfALogThatIsNotDeclaredIsRefusedNamingTheDeclaredOnes() {
        runner().withBean(OnUndeclared.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .hasMessageContaining(
                                                "@CxcEventListener(log = \"ordrs\") "
                                                        + OnUndeclared.class.getName()
                                                        + ".on")
                                        .hasMessageContaining(
                                                "no event log 'ordrs' is declared (the declared"
                                                        + " ones are [orders])")
                                        .hasMessageContaining("cxc.event-logs.ordrs.capacity="));
    }

    @Test
    void aParameterTheLogsEventsAreNotIsRefusedSayingWhatTheLogHolds() {
        runner().withBean(WrongType.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .hasMessageContaining("takes java.lang.String")
                                        .hasMessageContaining(
                                                "event log 'orders' holds java.lang.Long events (no"
                                                        + " EventLogCodecs bean names it, so it"
                                                        + " holds long events)"));
        runner().withBean(WrongSignature.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .hasMessageContaining("takes [long, String]")
                                        .hasMessageContaining(
                                                "a listener takes the event (Long) and, optionally,"
                                                        + " its long sequence"));
    }

    @Test
    void aPublishedEventOfAnotherTypeOrToAnUndeclaredLogIsRefused() {
        runner().run(
                        context -> {
                            CxcEventPublisher events = context.getBean(CxcEventPublisher.class);
                            assertThatThrownBy(() -> events.publish("orders", "one"))
                                    .isInstanceOf(IllegalArgumentException.class)
                                    .hasMessageContaining(
                                            "event log 'orders' holds java.lang.Long events")
                                    .hasMessageContaining("not java.lang.String");
                            assertThatThrownBy(() -> events.publish("nope", 1L))
                                    .isInstanceOf(IllegalArgumentException.class)
                                    .hasMessageContaining("no event log 'nope' is declared");
                        });
    }

    @Test
    void twoLiveCopiesWithOneCopyNameAreRefusedNamingTheProperty() {
        ApplicationContextRunner copy =
                runner().withBean(Fine.class)
                        .withPropertyValues("spring.application.name=orders", "server.port=8081");
        copy.run(
                first -> {
                    assertThat(first).hasNotFailed();
                    copy.run(
                            second -> {
                                assertThat(second).hasFailed();
                                Throwable refused = second.getStartupFailure();
                                while (!(refused instanceof InvalidCxcPropertyException)
                                        && refused.getCause() != null) {
                                    refused = refused.getCause();
                                }
                                assertThat(refused)
                                        .isInstanceOf(InvalidCxcPropertyException.class)
                                        .hasMessageContaining("'cxc.listeners.copy-name'")
                                        .hasMessageContaining(
                                                "a live process (PID "
                                                        + ProcessHandle.current().pid()
                                                        + ", this one) reads event log 'orders'")
                                        .hasMessageContaining(
                                                "as reader 'orders-8081/eventLogListenerRefusalsTest.Fine.on'")
                                        .hasMessageContaining(
                                                "{spring.application.name}-{server.port}");
                                assertThat(((InvalidCxcPropertyException) refused).action())
                                        .contains(
                                                "Set cxc.listeners.copy-name to a name unique to"
                                                        + " this copy");
                            });
                });
    }
}
