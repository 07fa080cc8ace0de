package io.subetha.cxc.boot.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginTrackedValue;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * What {@link AutoConfigureCxc} does to a test context before it refreshes: its properties (first
 * in precedence) and, for a fixed leadership, the {@code cxcLeadership} bean. A record, so that
 * test classes with the same settings share one cached context; each context made gets its own
 * directory.
 */
record CxcTestContextCustomizer(
        AutoConfigureCxc.Directory directory, AutoConfigureCxc.Leadership leadership)
        implements ContextCustomizer {

    static final String PROPERTY_SOURCE = "cxcTest";

    @Override
    public void customizeContext(
            ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("cxc.leader.backend", "local"); // never the production's global election
        if (directory == AutoConfigureCxc.Directory.TEMP) {
            Path temp = createTempDirectory();
            properties.put("cxc.directory", temp.toString());
            // Registered before any bean exists, so destroyed after all of them: after every cxc
            // file is closed.
            if (context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
                registry.registerDisposableBean("cxcTestDirectory", () -> delete(temp));
            }
        }
        if (leadership != AutoConfigureCxc.Leadership.ELECT) {
            if (directory == AutoConfigureCxc.Directory.CONFIGURED) {
                // The application's own directory: the test must not contest its election.
                properties.put(
                        "cxc.leader.enabled",
                        OriginTrackedValue.of("false", new AnnotationOrigin(this)));
            }
            // In a private directory the election runs, so that the heartbeat table, watchdogs
            // and schedulers work as in production; the fixed leadership is a tier above it,
            // which decides what @LeaderOnly and CxcLeadership answer.
            if (!(context instanceof BeanDefinitionRegistry registry)) {
                throw new IllegalStateException(
                        "@AutoConfigureCxc(leadership = "
                                + leadership
                                + ") needs a context that takes bean definitions, not "
                                + context.getClass().getName());
            }
            RootBeanDefinition definition = new RootBeanDefinition(FixedLeadership.class);
            definition
                    .getConstructorArgumentValues()
                    .addGenericArgumentValue(leadership == AutoConfigureCxc.Leadership.ALWAYS);
            registry.registerBeanDefinition("cxcLeadership", definition);
        }
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new OriginTrackedMapPropertySource(PROPERTY_SOURCE, properties));
    }

    /** Where a property the annotation set comes from, as a refusal names it. */
    private record AnnotationOrigin(CxcTestContextCustomizer customizer) implements Origin {
        @Override
        public String toString() {
            return "@AutoConfigureCxc(directory = "
                    + customizer.directory()
                    + ", leadership = "
                    + customizer.leadership()
                    + ")";
        }
    }

    /** Under /dev/shm where it exists, as the starter's default; owner-only. */
    private static Path createTempDirectory() {
        try {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "cxc-test-")
                    : Files.createTempDirectory("cxc-test-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a cxc test directory", e);
        }
    }

    static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the cxc test directory " + directory, e);
        }
    }
}
