package io.subetha.cxc.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The committed properties reference is what the metadata of the modules says today. */
class PropertiesReferenceTest {

    static final String UPDATE =
            "mvn -B -ntp -pl cxc-docs -am test -Dtest=PropertiesReferenceTest"
                    + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true";

    @Test
    void thePropertiesPageIsUpToDate() throws Exception {
        Path page = Pages.root().resolve(PropertiesReference.PAGE);
        String generated = PropertiesReference.page();
        if (Boolean.getBoolean("docs.update")) {
            Files.createDirectories(page.getParent());
            Files.writeString(page, generated);
        }
        assertThat(Files.exists(page) ? Files.readString(page) : "")
                .as(PropertiesReference.PAGE + " is out of date with the configuration metadata;"
                        + " regenerate it with:\n    " + UPDATE)
                .isEqualTo(generated);
    }

    @Test
    void declaredPrimitivesListTheirEntrySettingsWithDefaults() {
        Map<String, String> defaults = PropertiesReference.asMap(PropertiesReference.rows());
        assertThat(defaults)
                .containsEntry("cxc.schedulers.<name>.workers", "2")
                .containsEntry("cxc.schedulers.<name>.shutdown-timeout", "10s")
                .containsKey("cxc.schedulers.<name>.retry.max-attempts")
                .containsKey("cxc.schedulers.<name>.recurring.<job>.cron")
                .containsKey("cxc.schedulers.<name>.limits.<type>")
                .containsKey("cxc.regions.<name>.capacity-bytes")
                .containsKey("cxc.nan-values.<name>.cells")
                .containsKey("cxc.nan-tagged-values.<name>.max-user-tag")
                .containsEntry("cxc.leader.shutdown-timeout", "10s")
                .containsKey("cxc.zookeeper.connect-string")
                .containsKey("cxc.shedlock.name")
                .containsKey("cxc.lock-registry.ttl")
                .containsEntry("cxc.console.path", "/cxc");
    }
}
