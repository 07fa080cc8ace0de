package io.subetha.cxc.values;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real processes exchanging typed values with no channel beside the files: NaN-boxed cells of
 * every built-in type and user tags, and Umbra strings whose long bytes live in a shared region and
 * outlive the process that stored them.
 */
class ValuesProcessTest {

    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir Path dir;
    final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void killChildren() {
        children.close();
    }

    ChildJvm child(String name) {
        ChildJvm child = children.add(ChildJvm.start(name, UmbraChild.class));
        child.send(
                "open "
                        + dir.resolve("s.region")
                        + " "
                        + dir.resolve("v.nan")
                        + " "
                        + dir.resolve("t.nan"));
        assertThat(child.readLine(STEP)).isEqualTo("ok");
        return child;
    }

    @Test
    void twoProcessesExchangeTypedValuesAndStrings() {
        SharedRegion.TYPE
                .create(dir.resolve("s.region"), new SharedRegion.Settings(64 * 1024))
                .close();
        ChildJvm writer = child("writer");
        ChildJvm reader = child("reader");

        String[][] boxes = {
            {"int", "-2147483648", "int32 -2147483648"},
            {"uint32", "4294967295", "uint32 4294967295"},
            {"bool", "true", "bool true"},
            {"double", "-0.0", "double -0.0"},
            {"double", "NaN", "double NaN"},
            {"double", "-Infinity", "double -Infinity"},
            {"offset", "140737488355327", "offset 140737488355327"},
            {"int48", "-140737488355328", "int48 -140737488355328"}
        };
        for (int i = 0; i < boxes.length; i++) {
            assertThat(writer.ask("box " + (40 + i) + " " + boxes[i][0] + " " + boxes[i][1]))
                    .isEqualTo("ok");
        }
        for (int i = 0; i < boxes.length; i++) {
            assertThat(reader.ask("cell " + (40 + i))).isEqualTo("cell " + boxes[i][2]);
        }
        // A CAS from the other process sees exactly the bits written.
        String intBits = Long.toHexString(SharedNaNValue.box(Integer.MIN_VALUE));
        String newBits = Long.toHexString(SharedNaNValue.box(true));
        assertThat(reader.ask("cas 40 " + intBits + " " + newBits)).isEqualTo("cas true");
        assertThat(writer.ask("cas 40 " + intBits + " " + newBits)).isEqualTo("cas false");
        assertThat(writer.ask("cell 40")).isEqualTo("cell bool true");

        assertThat(writer.ask("tag 3 99 -5")).isEqualTo("ok");
        assertThat(reader.ask("tagged 3")).isEqualTo("tagged 99 -5");
        assertThat(reader.askFailing("tag 4 100 1"))
                .contains("user tag 100 is outside this file's 0..99");

        assertThat(writer.ask("store 0 short")).isEqualTo("ok");
        assertThat(writer.ask("store 1 a string longer than twelve bytes, kept in the region"))
                .isEqualTo("ok");
        assertThat(reader.ask("read 0")).isEqualTo("text short");
        assertThat(reader.ask("read 1"))
                .isEqualTo("text a string longer than twelve bytes, kept in the region");
        writer.kill();
        try (SharedRegion region =
                SharedRegion.TYPE.openAsRecorded(
                        dir.resolve("s.region"), CxcFileOptions.defaults())) {
            assertThat(region.reclaimDead())
                    .as("stored strings are disowned: they outlive the writer")
                    .isZero();
        }
        assertThat(reader.ask("read 1"))
                .isEqualTo("text a string longer than twelve bytes, kept in the region");
    }
}
