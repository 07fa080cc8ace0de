package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.liveness.HeartbeatTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The application's own primitives, opened by name through {@link CxcPrimitives}. */
class CxcPrimitivesTest {

    @TempDir Path temp;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc");
    }

    @Configuration(proxyBeanMethods = false)
    static class Ledgers {
        @Bean
        FencedLedger audit(CxcPrimitives primitives) {
            return primitives.open(
                    "audit",
                    (file, options) ->
                            FencedLedger.TYPE.openOrCreate(
                                    file, FencedLedger.Settings.NONE, options));
        }
    }

    @Test
    void anOpenedPrimitiveLivesInTheDirectoryShowsInTheEndpointAndMetersAndClosesWithTheContext() {
        AtomicReference<FencedLedger> kept = new AtomicReference<>();
        runner().withUserConfiguration(Ledgers.class)
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            FencedLedger audit = context.getBean("audit", FencedLedger.class);
                            kept.set(audit);
                            Path file = temp.resolve("cxc").resolve("audit.cxc");
                            assertThat(audit.file()).isEqualTo(file);
                            assertThat(
                                            PosixFilePermissions.toString(
                                                    Files.getPosixFilePermissions(file)))
                                    .isEqualTo("rw-------");
                            assertThat(context.getBean(CxcPrimitives.class).opened())
                                    .containsExactly(audit);

                            audit.write(1, 42);
                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive", "audit.cxc",
                                                            "kind", "fenced-ledger",
                                                            "op", "write")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(1);
                            assertThat(context.getBean(CxcEndpoint.class).cxc().primitives())
                                    .anySatisfy(
                                            p -> {
                                                assertThat(p.name()).isEqualTo("audit.cxc");
                                                assertThat(p.kind()).isEqualTo("fenced-ledger");
                                            });
                        });
        assertThat(kept.get().isClosed()).isTrue();
    }

    @Test
    void aNameIsOpenedOncePerContext() {
        runner().withUserConfiguration(Ledgers.class)
                .run(
                        context -> {
                            CxcPrimitives primitives = context.getBean(CxcPrimitives.class);
                            assertThatThrownBy(
                                            () ->
                                                    primitives.open(
                                                            "audit",
                                                            (file, options) ->
                                                                    FencedLedger.TYPE.openOrCreate(
                                                                            file,
                                                                            FencedLedger.Settings
                                                                                    .NONE,
                                                                            options)))
                                    .isInstanceOf(IllegalStateException.class)
                                    .hasMessageContaining("'audit' is already open")
                                    .hasMessageContaining("inject the bean");
                        });
    }

    @Test
    void aNameThatIsNotAPlainFileNameIsRefusedBeforeAnythingIsWritten() {
        runner().run(
                        context -> {
                            CxcPrimitives primitives = context.getBean(CxcPrimitives.class);
                            for (String bad : new String[] {"../escape", ".hidden", "a/b", ""}) {
                                assertThatThrownBy(
                                                () ->
                                                        primitives.open(
                                                                bad,
                                                                (file, options) ->
                                                                        FencedLedger.TYPE
                                                                                .openOrCreate(
                                                                                        file,
                                                                                        FencedLedger
                                                                                                .Settings
                                                                                                .NONE,
                                                                                        options)))
                                        .isInstanceOf(IllegalArgumentException.class)
                                        .hasMessageContaining("not a plain file name");
                            }
                            assertThat(temp.resolve("escape.cxc")).doesNotExist();
                        });
    }

    @Test
    void aNameWhoseFileIsAnotherKindIsAFormatErrorAndTheFileIsLeftAsItWas() throws Exception {
        runner().withUserConfiguration(Ledgers.class).run(context -> {});
        Path file = temp.resolve("cxc").resolve("audit.cxc");
        byte[] before = Files.readAllBytes(file);
        CxcPrimitives.Opener<HeartbeatTable> table = HeartbeatTable.TYPE::openAsRecorded;
        runner().run(
                        context ->
                                assertThatThrownBy(
                                                () ->
                                                        context.getBean(CxcPrimitives.class)
                                                                .open("audit", table))
                                        .isInstanceOf(CxcFormatException.class)
                                        .hasMessageContaining("fenced-ledger"));
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
    }

    @Test
    void anOpenerThatOpensAnotherFileIsRefused() {
        Path elsewhere = temp.resolve("elsewhere.cxc");
        CxcPrimitives.Opener<FencedLedger> astray =
                (file, options) ->
                        FencedLedger.TYPE.openOrCreate(
                                elsewhere, FencedLedger.Settings.NONE, options);
        runner().run(
                        context ->
                                assertThatThrownBy(
                                                () ->
                                                        context.getBean(CxcPrimitives.class)
                                                                .open("audit", astray))
                                        .isInstanceOf(IllegalStateException.class)
                                        .hasMessageContaining("instead of the file it was given"));
    }

    @Test
    void withCxcDisabledTheFactoryOpensInAPrivateDirectory() {
        runner().withPropertyValues("cxc.enabled=false")
                .run(
                        context ->
                                assertThat(context.getBean(CxcPrimitives.class).directory())
                                        .isNotEqualTo(temp.resolve("cxc")));
    }
}
