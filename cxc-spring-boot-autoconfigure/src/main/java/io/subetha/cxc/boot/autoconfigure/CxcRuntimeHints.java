package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.LeaderOnlyAdvisor;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the starter reads reflectively at run time, for an AOT-processed (native) application: the
 * {@link LeaderOnly} annotation and its {@link OnNotLeader} attribute (read by the advisor on each
 * method's first call), every declarable primitive's settings record (bound component by component,
 * then constructed), and the {@code /actuator/cxc} answer's records (serialised to JSON).
 * Registered in {@code META-INF/spring/aot.factories}.
 */
final class CxcRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection()
                .registerType(LeaderOnly.class, MemberCategory.INVOKE_PUBLIC_METHODS)
                .registerType(OnNotLeader.class, MemberCategory.ACCESS_PUBLIC_FIELDS)
                .registerType(LeaderOnlyAdvisor.class);
        for (DeclarablePrimitive<?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            hints.reflection()
                    .registerType(
                            kind.settingsType(),
                            MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
                            MemberCategory.INVOKE_PUBLIC_METHODS,
                            MemberCategory.ACCESS_DECLARED_FIELDS);
        }
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(hints.reflection(), CxcEndpoint.CxcDescriptor.class);
    }
}
