package io.subetha.cxc.console.autoconfigure;

import io.subetha.cxc.console.ConsoleOverview;
import java.util.List;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.StringHttpMessageConverter;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The console on the management port, when {@code management.server.port} is set apart: Actuator's
 * child context has no Spring MVC of its own beyond its endpoints, so the console brings the
 * mapping, adapter and exception resolver its controllers need there (the context's composite
 * handler mapping, adapter and resolver pick them up). The data beans stay in the application's
 * context, the parent.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnBean(ConsoleOverview.class)
@Import(ConsoleWeb.class)
class ConsoleManagementContextConfiguration {

    @Bean
    RequestMappingHandlerMapping cxcConsoleHandlerMapping() {
        RequestMappingHandlerMapping mapping = new RequestMappingHandlerMapping();
        mapping.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return mapping;
    }

    @Bean
    RequestMappingHandlerAdapter cxcConsoleHandlerAdapter() {
        RequestMappingHandlerAdapter adapter = new RequestMappingHandlerAdapter();
        adapter.setMessageConverters(converters());
        return adapter;
    }

    @Bean
    ExceptionHandlerExceptionResolver cxcConsoleExceptionResolver() {
        ExceptionHandlerExceptionResolver resolver = new ExceptionHandlerExceptionResolver();
        resolver.setMessageConverters(converters());
        return resolver;
    }

    private static List<HttpMessageConverter<?>> converters() {
        return List.of(new StringHttpMessageConverter(), new JacksonJsonHttpMessageConverter());
    }
}
