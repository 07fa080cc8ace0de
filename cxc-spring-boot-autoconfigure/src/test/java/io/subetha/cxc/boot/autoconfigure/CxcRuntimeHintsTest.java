package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

/** What a native image needs to read reflectively, checked with Spring's own predicates. */
class CxcRuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    CxcRuntimeHintsTest() {
        new CxcRuntimeHints().registerHints(hints, getClass().getClassLoader());
    }

    @Test
    void registeredForAot() {
        assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
                .anyMatch(CxcRuntimeHints.class::isInstance);
    }

    @Test
    void theAnnotationAndItsAttributeCanBeRead() throws Exception {
        assertThat(RuntimeHintsPredicates.reflection().onType(LeaderOnly.class)).accepts(hints);
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(LeaderOnly.class.getMethod("onNotLeader")))
                .accepts(hints);
    }

    @Test
    void everyDeclarableSettingsRecordCanBeBoundAndMade() throws Exception {
        assertThat(DeclaredPrimitivesRegistrar.DECLARABLE)
                .<Class<?>>extracting(k -> k.beanType)
                .contains(EpochBarrier.class, FailoverWatchdog.class);
        for (DeclarablePrimitive<?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            Class<?> settings = kind.settingsType();
            RecordComponent[] components = settings.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                assertThat(
                                RuntimeHintsPredicates.reflection()
                                        .onMethodInvocation(components[i].getAccessor()))
                        .as("%s.%s()", settings.getSimpleName(), components[i].getName())
                        .accepts(hints);
            }
            Constructor<?> canonical = settings.getDeclaredConstructor(types);
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(canonical))
                    .as("%s's canonical constructor", settings.getSimpleName())
                    .accepts(hints);
        }
    }

    @Test
    void theEndpointsAnswerCanBeSerialised() throws Exception {
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(
                                        CxcEndpoint.LeaderDescriptor.class.getMethod("term")))
                .accepts(hints);
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(
                                        CxcParticipants.Participant.class.getMethod("alive")))
                .accepts(hints);
    }
}
