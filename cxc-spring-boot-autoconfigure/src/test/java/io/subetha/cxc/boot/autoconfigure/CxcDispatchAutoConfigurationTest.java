package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.process.Pids;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Pass registries declared by properties, and {@code @PassId} handler beans registered in them. */
class CxcDispatchAutoConfigurationTest {

    @TempDir Path temp;

    @Configuration(proxyBeanMethods = false)
    static class Handlers {
        @Bean
        @PassId(7)
        PassHandler doubler() {
            return args -> new byte[] {(byte) (args[0] * 2)};
        }

        @Bean
        PassHandler unannotated() {
            return args -> args;
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcDispatchAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.leader.enabled=false",
                        "cxc.pass-registries.calls.max-passes=4",
                        "cxc.pass-registries.calls.mailbox-slots=2");
    }

    @Test
    void handlerBeansServeCallsFromAnyHandleAndLeaveOnShutdown() {
        Path file = temp.resolve("cxc").resolve("calls.passes");
        runner().withUserConfiguration(Handlers.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            PassRegistry registry = context.getBean("calls", PassRegistry.class);
                            assertThat(registry.file()).isEqualTo(file);
                            assertThat(registry.maxPasses()).isEqualTo(4);
                            assertThat(registry.mailboxSlots()).isEqualTo(2);
                            assertThat(registry.registeredHere()).containsExactly(7L);
                            assertThat(context.getBean(PrimitiveRegistry.class).primitives())
                                    .contains(registry);
                            try (PassRegistry caller = PassRegistry.open(file)) {
                                assertThat(
                                                caller.execute(
                                                        7, new byte[] {21}, Duration.ofSeconds(30)))
                                        .containsExactly(42);
                            }
                            @SuppressWarnings("unchecked")
                            List<Map<String, Object>> passes =
                                    (List<Map<String, Object>>) registry.describe().get("passes");
                            assertThat(passes.get(0))
                                    .containsEntry("passId", 7L)
                                    .containsEntry("ownerPid", Pids.current())
                                    .containsEntry("calls", 1L);
                        });
        try (PassRegistry after = PassRegistry.open(file)) {
            assertThat(after.isRegistered(7)).isFalse();
        }
    }

    @Test
    void aHandlerWithNoRegistryToGoToFailsStartupSayingWhatToDeclare() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class, CxcDispatchAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"), "cxc.leader.enabled=false")
                .withUserConfiguration(Handlers.class)
                .run(
                        context ->
                                assertThat(context)
                                        .getFailure()
                                        .rootCause()
                                        .hasMessageContaining("none is declared")
                                        .hasMessageContaining("cxc.pass-registries.calls"));
    }
}
