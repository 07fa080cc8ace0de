package io.subetha.cxc.boot.test;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Finds {@link AutoConfigureCxc} on a test class (or an enclosing or meta-annotated one). */
final class CxcTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        AutoConfigureCxc annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureCxc.class);
        return annotation == null
                ? null
                : new CxcTestContextCustomizer(annotation.directory(), annotation.leadership());
    }
}
