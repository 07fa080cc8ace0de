package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.dispatch.PassHandlers;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Dispatch: {@code @PassId} handler beans registered in the pass registries declared by {@code
 * cxc.pass-registries.<name>.*} (the registries themselves are declared by {@link
 * DeclaredPrimitivesRegistrar}).
 */
@AutoConfiguration(after = CxcAutoConfiguration.class)
public final class CxcDispatchAutoConfiguration {

    @Bean
    static PassHandlers cxcPassHandlers(ListableBeanFactory beans) {
        return new PassHandlers(beans);
    }
}
