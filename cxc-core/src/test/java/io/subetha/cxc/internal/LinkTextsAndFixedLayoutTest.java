package io.subetha.cxc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small parsers and rules file validation leans on: the namespace link's bracketed inode
 * wherever the brackets stand, a kind's article, and a fixed body that has no capacity.
 */
class LinkTextsAndFixedLayoutTest {

    @TempDir Path dir;

    private long namespaceOf(String target) throws Exception {
        Path link = dir.resolve("ns-" + Integer.toHexString(target.hashCode()));
        Files.createSymbolicLink(link, Path.of(target));
        return PidNamespace.read(link);
    }

    @Test
    void theInodeIsReadBetweenTheFirstOpeningBracketAndTheNextClosingOne() throws Exception {
        assertThat(namespaceOf("[5]")).isEqualTo(5);
        assertThat(namespaceOf("x][7]")).isEqualTo(7);
        assertThat(namespaceOf("pid:[12]]")).isEqualTo(12);
    }

    @Test
    void aLinkWithoutBothBracketsOrWithoutANumberIsUnknown() throws Exception {
        for (String odd :
                new String[] {"pid:[12", "pid:12]", "12]", "]12[", "pid:[]", "pid:[x1]"}) {
            assertThat(namespaceOf(odd)).as(odd).isEqualTo(PidNamespace.UNKNOWN);
        }
    }

    @Test
    void aNameStartingWithAVowelTakesAn() {
        assertThat(FileSpec.withArticle("async-pointer")).isEqualTo("an async-pointer");
        assertThat(FileSpec.withArticle("epoch-barrier")).isEqualTo("an epoch-barrier");
        assertThat(FileSpec.withArticle("leader-election")).isEqualTo("a leader-election");
    }

    @Test
    void aFixedBodyHasOneLengthAndNoCapacityOrSlotSize() {
        BodyLayout fixed = BodyLayout.fixed(128);
        assertThat(fixed.bodyLength(0, 0)).isEqualTo(128);
        for (int[] shape : new int[][] {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}) {
            assertThatThrownBy(() -> fixed.bodyLength(shape[0], shape[1]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("this primitive has no capacity or slot size (both must be 0)");
        }
    }
}
