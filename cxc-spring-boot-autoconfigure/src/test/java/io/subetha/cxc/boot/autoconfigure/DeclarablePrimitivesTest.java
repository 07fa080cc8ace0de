package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The declarable primitives: settings bound from properties through core's settings records. */
class DeclarablePrimitivesTest {

    static final DeclarablePrimitive.Context PARTICIPATING =
            new DeclarablePrimitive.Context() {
                @Override
                public boolean participates() {
                    return true;
                }

                @Override
                public Path participantsTable() {
                    return Path.of("participants.heartbeat");
                }
            };

    @SuppressWarnings("unchecked")
    static DeclarablePrimitive<EpochBarrier, EpochBarrier.Settings> barriers() {
        return (DeclarablePrimitive<EpochBarrier, EpochBarrier.Settings>)
                DeclaredPrimitivesRegistrar.DECLARABLE.get(0);
    }

    @Test
    void settingsAreBoundByPropertyNameWithCoreDefaultsForTheRest() {
        var declaration =
                barriers()
                        .bind(
                                "phases",
                                Map.of("capacity", "4", "heartbeat-interval", "100ms"),
                                PARTICIPATING);
        assertThat(declaration.settings())
                .isEqualTo(
                        new EpochBarrier.Settings(
                                4,
                                Duration.ofMillis(100),
                                EpochBarrier.DEFAULT_BARRIER_GRACE_EPOCHS));
    }

    @Test
    void coreLimitsAreReportedAgainstTheProperty() {
        assertThatThrownBy(() -> barriers().bind("phases", Map.of("capacity", "0"), PARTICIPATING))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.capacity'")
                .hasMessageContaining("1..1024");
        assertThatThrownBy(
                        () ->
                                barriers()
                                        .bind(
                                                "phases",
                                                Map.of("heartbeat-interval", "soon"),
                                                PARTICIPATING))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.heartbeat-interval'")
                .hasMessageContaining("not a valid duration");
    }

    @Test
    void anUnknownOrStarterSuppliedSettingIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> barriers().bind("phases", Map.of("capcity", "4"), PARTICIPATING))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.capcity'")
                .hasMessageContaining("capacity, heartbeat-interval, grace-intervals");
        assertThatThrownBy(
                        () ->
                                DeclaredPrimitivesRegistrar.DECLARABLE
                                        .get(1)
                                        .bind(
                                                "jobs",
                                                Map.of("heartbeat-table", "/etc/x"),
                                                PARTICIPATING))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("the starter sets it itself");
    }

    /**
     * CxcProperties' Barrier and Watchdog classes exist for the IDE's metadata only: their
     * properties and defaults must be core's, or the documentation would drift from the rule.
     */
    @Test
    void thePropertyClassesDocumentExactlyCoresSettingsAndDefaults() throws Exception {
        assertSameSettings(
                CxcProperties.Barrier.class,
                barriers(),
                barriers().settingNames(),
                EpochBarrier.TYPE.defaults(),
                Map.of());
        assertSameSettings(
                CxcProperties.Watchdog.class,
                DeclaredPrimitivesRegistrar.DECLARABLE.get(1),
                DeclaredPrimitivesRegistrar.DECLARABLE.get(1).settingNames(),
                FailoverWatchdog.TYPE.defaults(),
                Map.of("graceEpochs", FailoverWatchdog.DEFAULT_GRACE_EPOCHS));
        assertSameSettings(
                CxcProperties.ProgressTask.class,
                DeclaredPrimitivesRegistrar.DECLARABLE.get(2),
                DeclaredPrimitivesRegistrar.DECLARABLE.get(2).settingNames(),
                io.subetha.cxc.fanout.ProgressTask.TYPE.defaults(),
                Map.of());
    }

    private static void assertSameSettings(
            Class<?> documented,
            DeclarablePrimitive<?, ?> kind,
            java.util.List<String> names,
            Record defaults,
            Map<String, Object> extras)
            throws Exception {
        Object instance = documented.getDeclaredConstructor().newInstance();
        var properties =
                Arrays.stream(
                                Introspector.getBeanInfo(documented, Object.class)
                                        .getPropertyDescriptors())
                        .filter(p -> p.getWriteMethod() != null)
                        .toList();
        assertThat(properties.stream().map(p -> DeclarablePrimitive.kebab(p.getName())))
                .containsExactlyInAnyOrderElementsOf(names);
        for (PropertyDescriptor property : properties) {
            Object documentedDefault = property.getReadMethod().invoke(instance);
            Object coreDefault = extras.get(property.getName());
            for (RecordComponent component : defaults.getClass().getRecordComponents()) {
                if (kind.property(component.getName())
                        .equals(DeclarablePrimitive.kebab(property.getName()))) {
                    coreDefault = component.getAccessor().invoke(defaults);
                }
            }
            assertThat(documentedDefault).as(property.getName()).isEqualTo(coreDefault);
        }
    }
}
