package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.boot.scheduling.SchedulerHistory;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.scheduling.JobFailure;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
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
    void theEventListenerAnnotationsAttributesCanBeRead() throws Exception {
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(CxcEventListener.class.getMethod("log")))
                .accepts(hints);
    }

    /** A bean of the application's, as AOT sees it. */
    static class Tally {
        @CxcEventListener(log = "orders")
        void on(long event) {}
    }

    @Test
    void aListenerMethodStaysInvocableInANativeImage() throws Exception {
        RuntimeHints beanHints = new RuntimeHints();
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(beanHints, Tally.class);
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(
                                        Tally.class.getDeclaredMethod("on", long.class)))
                .accepts(beanHints);
    }

    @Test
    void everyDeclaredKindsPropertiesClassCanBeBound() throws Exception {
        assertThat(DeclaredPrimitivesRegistrar.DECLARABLE)
                .<Class<?>>extracting(k -> k.beanType)
                .contains(EpochBarrier.class, FailoverWatchdog.class, EventStateLog.class);
        for (DeclaredKind<?, ?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            assertBindable(kind.propertiesType);
        }
    }

    /** Its constructor and setters, and those of the nested settings groups it holds (retry). */
    private void assertBindable(Class<?> properties) throws Exception {
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onConstructorInvocation(properties.getDeclaredConstructor()))
                .as("%s's constructor", properties.getSimpleName())
                .accepts(hints);
        for (PropertyDescriptor property :
                Introspector.getBeanInfo(properties, Object.class).getPropertyDescriptors()) {
            // A nested group held final (a scheduler's retry) is read, then bound into, not set.
            var binding =
                    property.getWriteMethod() == null
                            ? property.getReadMethod()
                            : property.getWriteMethod();
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(binding))
                    .as("%s.%s", properties.getSimpleName(), binding)
                    .accepts(hints);
            if (property.getPropertyType().getEnclosingClass() == DeclaredProperties.class
                    || property.getPropertyType() == RetryProperties.class) {
                assertBindable(property.getPropertyType());
            }
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
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(
                                        SchedulerHistory.Entry.class.getMethod("outcome")))
                .accepts(hints);
        assertThat(
                        RuntimeHintsPredicates.reflection()
                                .onMethodInvocation(JobFailure.class.getMethod("message")))
                .accepts(hints);
    }
}
