package io.subetha.cxc.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Directory;
import io.subetha.cxc.boot.test.AutoConfigureCxc.Leadership;
import io.subetha.cxc.election.SharedLeaderElection;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The customizer itself: a directory per context, deleted on close; equal settings, one cache key.
 */
class CxcTestContextCustomizerTest {

    @ImportAutoConfiguration(CxcAutoConfiguration.class)
    static class Config {}

    @Test
    void eachContextGetsItsOwnDirectoryDeletedWhenItCloses() {
        CxcTestContextCustomizer customizer =
                new CxcTestContextCustomizer(Directory.TEMP, Leadership.ELECT);
        Path first;
        Path second;
        try (AnnotationConfigApplicationContext a = new AnnotationConfigApplicationContext();
                AnnotationConfigApplicationContext b = new AnnotationConfigApplicationContext()) {
            for (AnnotationConfigApplicationContext context : List.of(a, b)) {
                customizer.customizeContext(context, null);
                context.register(Config.class);
                context.refresh();
            }
            first = a.getBean(SharedLeaderElection.class).file();
            second = b.getBean(SharedLeaderElection.class).file();
            assertThat(first.getParent()).isNotEqualTo(second.getParent());
            assertThat(first).exists();
            a.close();
            assertThat(first.getParent()).doesNotExist();
            assertThat(second).exists();
        }
        assertThat(second.getParent()).doesNotExist();
    }

    @Test
    void theSameSettingsShareACachedContextAndOthersDoNot() {
        CxcTestContextCustomizerFactory factory = new CxcTestContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(Plain.class, List.of())).isNull();
        assertThat(factory.createContextCustomizer(ElectA.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(ElectB.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(AlwaysC.class, List.of()));
    }

    static class Plain {}

    @AutoConfigureCxc
    static class ElectA {}

    @AutoConfigureCxc(directory = Directory.TEMP, leadership = Leadership.ELECT)
    static class ElectB {}

    @AutoConfigureCxc(leadership = Leadership.ALWAYS)
    static class AlwaysC {}
}
