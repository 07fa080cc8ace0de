package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.boot.actuate.endpoint.SchedulerJobsEndpoint;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.boot.aop.LeaderOnlyAdvisor;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What the starter reads reflectively at run time, for an AOT-processed (native) application: the
 * {@link LeaderOnly} annotation and its {@link OnNotLeader} attribute (read by the advisor on each
 * method's first call), the {@link CxcEventListener} annotation (read when the listeners are
 * found), every declarable primitive's properties class (bound by the registrar before any bean
 * exists, so not as part of {@link CxcProperties}' own binding), and the {@code /actuator/cxc}
 * answer's records (serialised to JSON). Registered in {@code META-INF/spring/aot.factories}.
 */
final class CxcRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection()
                .registerType(LeaderOnly.class, MemberCategory.INVOKE_PUBLIC_METHODS)
                .registerType(OnNotLeader.class, MemberCategory.ACCESS_PUBLIC_FIELDS)
                .registerType(CxcEventListener.class, MemberCategory.INVOKE_PUBLIC_METHODS)
                .registerType(LeaderOnlyAdvisor.class);
        for (DeclaredKind<?, ?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            BindableRuntimeHintsRegistrar.forTypes(kind.propertiesType).registerHints(hints);
            // Its settings are listed by field in the message refusing an unknown one.
            for (Class<?> c = kind.propertiesType; c != Object.class; c = c.getSuperclass()) {
                hints.reflection().registerType(c, MemberCategory.ACCESS_DECLARED_FIELDS);
            }
            // A file made with other creation settings is opened with its own: the settings
            // record is read and rebuilt by its components (CreationSettings).
            hints.reflection()
                    .registerType(
                            kind.type.defaults().getClass(),
                            MemberCategory.INVOKE_PUBLIC_METHODS,
                            MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        }
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(
                        hints.reflection(),
                        CxcEndpoint.CxcDescriptor.class,
                        SchedulerJobsEndpoint.SchedulerJobs.class);
    }
}
