package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Regions and NaN cells declared by properties: beans by name over their files, registered. */
class CxcMemoryDeclarationsTest {

    @TempDir Path temp;

    @Test
    void regionsAndNaNCellsAreDeclaredByNameWithTheirSettings() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CxcAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "cxc.regions.blobs.capacity-bytes=8192",
                        "cxc.nan-values.flags.cells=8",
                        "cxc.nan-tagged-values.state.max-user-tag=15")
                .withUserConfiguration(User.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            User user = context.getBean(User.class);
                            assertThat(user.blobs.capacity()).isEqualTo(8192);
                            assertThat(user.blobs.file())
                                    .isEqualTo(temp.resolve("cxc").resolve("blobs.region"));
                            assertThat(user.flags.cells()).isEqualTo(8);
                            assertThat(user.state.maxUserTag()).isEqualTo(15);
                            assertThat(user.state.cells()).isEqualTo(64);
                            long handle = user.blobs.allocate(10);
                            user.flags.set(0, SharedNaNValue.boxOffset(handle & 0xFFFF_FFFFL));
                            assertThat(
                                            context
                                                    .getBean(PrimitiveRegistry.class)
                                                    .primitives()
                                                    .stream()
                                                    .map(p -> p.kind())
                                                    .toList())
                                    .contains("shared-region", "nan-value", "nan-tagged-value");
                        });
    }

    @Test
    void thePropertyClassesDocumentExactlyCoresDefaults() {
        assertThat(new DeclaredProperties.Region().getCapacityBytes())
                .isEqualTo(SharedRegion.TYPE.defaults().capacityBytes());
        assertThat(new DeclaredProperties.NaNValues().getCells())
                .isEqualTo(SharedNaNValue.TYPE.defaults().cells());
        assertThat(
                        Map.of(
                                "cells", new DeclaredProperties.NaNTaggedValues().getCells(),
                                "maxUserTag",
                                        new DeclaredProperties.NaNTaggedValues().getMaxUserTag()))
                .isEqualTo(
                        Map.of(
                                "cells", SharedNaNTaggedValue.TYPE.defaults().cells(),
                                "maxUserTag", SharedNaNTaggedValue.TYPE.defaults().maxUserTag()));
    }

    static class User {
        final SharedRegion blobs;
        final SharedNaNValue flags;
        final SharedNaNTaggedValue state;

        User(
                @Qualifier("blobs") SharedRegion blobs,
                @Qualifier("flags") SharedNaNValue flags,
                @Qualifier("state") SharedNaNTaggedValue state) {
            this.blobs = blobs;
            this.flags = flags;
            this.state = state;
        }
    }
}
