package io.subetha.cxc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFileAccessException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading the header of a file shorter than a header: the read stops at the file's end, names the
 * byte it stopped at, and the error keeps the I/O failure's own text (a plain {@link IOException},
 * which has no file-system reason).
 */
class ShortHeaderReadTest {

    @TempDir Path dir;

    @Test
    void aHeaderReadThatMeetsTheEndOfTheFileNamesTheByteItStoppedAt() throws Exception {
        Path path = Files.write(dir.resolve("ten.cxc"), new byte[10]);
        assertThatThrownBy(() -> MappedFiles.readHeader(path))
                .isInstanceOf(CxcFileAccessException.class)
                .hasMessage(
                        "cannot read the header of "
                                + path
                                + ": java.io.IOException: unexpected end of file at byte 10")
                .cause()
                .isExactlyInstanceOf(IOException.class);
        assertThat(Files.size(path)).isEqualTo(10);
    }
}
