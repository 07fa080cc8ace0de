package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.liveness.EpochBarrier;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
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
     * CxcProperties' classes for declared primitives ({@code Barrier}, {@code Watchdog}, ...) exist
     * for the IDE's metadata only: for every declarable kind, the class its {@code cxc.<plural>}
     * map holds must document exactly core's settings and defaults (and the starter's extras), or
     * the documentation would drift from the rule.
     */
    @Test
    void thePropertyClassesDocumentExactlyCoresSettingsAndDefaults() throws Exception {
        for (DeclarablePrimitive<?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            assertSameSettings(
                    documentedClass(kind),
                    kind,
                    kind.settingNames(),
                    (Record) kind.type.defaults(),
                    kind.extraDefaults());
        }
    }

    /** The value class of {@code CxcProperties.get<Plural>()}'s map. */
    private static Class<?> documentedClass(DeclarablePrimitive<?, ?> kind) throws Exception {
        StringBuilder getter = new StringBuilder("get");
        for (String word : kind.plural.split("-")) {
            getter.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        Method method = CxcProperties.class.getMethod(getter.toString());
        ParameterizedType map = (ParameterizedType) method.getGenericReturnType();
        return (Class<?>) map.getActualTypeArguments()[1];
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
            Object coreDefault = extras.get(DeclarablePrimitive.kebab(property.getName()));
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
