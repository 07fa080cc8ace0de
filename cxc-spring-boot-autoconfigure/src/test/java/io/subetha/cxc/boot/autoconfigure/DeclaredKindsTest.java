package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The declarable primitives: settings bound from properties into CxcProperties' typed classes and
 * mapped to core's settings records, whose constructors hold the limits.
 */
class DeclaredKindsTest {

    static final DeclaredKind.Context PARTICIPATING =
            new DeclaredKind.Context() {
                @Override
                public boolean participates() {
                    return true;
                }

                @Override
                public String notTakingPart() {
                    return "";
                }

                @Override
                public Path participantsTable() {
                    return Path.of("participants.heartbeat");
                }
            };

    @SuppressWarnings("unchecked")
    static DeclaredKind<EpochBarrier, DeclaredProperties.Barrier, EpochBarrier.Settings>
            barriers() {
        return (DeclaredKind<EpochBarrier, DeclaredProperties.Barrier, EpochBarrier.Settings>)
                DeclaredPrimitivesRegistrar.DECLARABLE.get(0);
    }

    private static Binder binder(String... properties) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < properties.length; i += 2) {
            map.put(properties[i], properties[i + 1]);
        }
        return new Binder(new MapConfigurationPropertySource(map));
    }

    private static EpochBarrier.Settings barrier(String... properties) {
        var kind = barriers();
        DeclaredProperties.Barrier phases = kind.bind(binder(properties)).get("phases");
        return kind.declare("phases", phases, PARTICIPATING).settings();
    }

    @Test
    void settingsAreBoundByPropertyNameWithCoreDefaultsForTheRest() {
        assertThat(
                        barrier(
                                "cxc.barriers.phases.capacity", "4",
                                "cxc.barriers.phases.heartbeat-interval", "100ms"))
                .isEqualTo(
                        new EpochBarrier.Settings(
                                4,
                                Duration.ofMillis(100),
                                EpochBarrier.DEFAULT_BARRIER_GRACE_EPOCHS));
    }

    @Test
    void coreLimitsAreReportedAgainstTheProperty() {
        assertThatThrownBy(() -> barrier("cxc.barriers.phases.capacity", "0"))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.capacity'")
                .hasMessageContaining("1..1024");
        assertThatThrownBy(() -> barrier("cxc.barriers.phases.heartbeat-interval", "soon"))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.heartbeat-interval'")
                .hasMessageContaining("not a valid duration");
    }

    @Test
    void anUnknownOrStarterSuppliedSettingIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> barrier("cxc.barriers.phases.capcity", "4"))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("'cxc.barriers.phases.capcity'")
                .hasMessageContaining("capacity, heartbeat-interval, grace-intervals");
        assertThatThrownBy(
                        () ->
                                DeclaredPrimitivesRegistrar.DECLARABLE
                                        .get(1)
                                        .bind(
                                                binder(
                                                        "cxc.watchdogs.jobs.heartbeat-table",
                                                        "/etc/x")))
                .isInstanceOf(InvalidCxcPropertyException.class)
                .hasMessageContaining("the starter sets it itself");
    }

    /**
     * The defaults live in core's records: for every declarable kind, a declaration that sets
     * nothing maps to exactly core's default settings (the codecs and table the starter supplies
     * aside), so CxcProperties' classes cannot drift from the rule.
     */
    @Test
    void aDeclarationThatSetsNothingHasCoresDefaults() {
        for (DeclaredKind<?, ?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            Record mapped = unset(kind);
            Record defaults = kind.type.defaults();
            if (mapped instanceof BackgroundScheduler.Settings scheduler) {
                BackgroundScheduler.Settings core = (BackgroundScheduler.Settings) defaults;
                assertThat(scheduler.capacity()).isEqualTo(core.capacity());
                assertThat(scheduler.grace()).isEqualTo(core.grace());
            } else if (mapped instanceof FailoverWatchdog.Settings watchdog) {
                assertThat(watchdog.workPerSlot())
                        .isEqualTo(((FailoverWatchdog.Settings) defaults).workPerSlot());
            } else {
                assertThat(mapped).as(kind.plural).isEqualTo(defaults);
            }
        }
    }

    private static <D, S extends Record> S unset(DeclaredKind<?, D, S> kind) {
        D properties = BeanUtils.instantiateClass(kind.propertiesType);
        return kind.declare("unset", properties, PARTICIPATING).settings();
    }

    @Test
    void theSettingNamesAreThePropertiesClassesInItsOrder() {
        assertThat(barriers().settingNames())
                .containsExactly("capacity", "heartbeat-interval", "grace-intervals");
        assertThat(DeclaredPrimitivesRegistrar.DECLARABLE.get(1).settingNames())
                .containsExactly("grace-epochs", "work-per-slot");
    }
}
