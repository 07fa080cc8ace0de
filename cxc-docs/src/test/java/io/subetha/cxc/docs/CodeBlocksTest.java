package io.subetha.cxc.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a page's code blocks, their examples and their unclosed fences are read. */
class CodeBlocksTest {

    @Test
    void aJavaBlockNamesTheExampleAboveIt() {
        List<String> page = List.of("text", "<!-- example: election -->", "```java", "  int a;", "```");
        CodeBlocks.Parsed parsed = CodeBlocks.parse(page);
        assertThat(parsed.unclosedFence()).isEmpty();
        assertThat(parsed.blocks()).singleElement().satisfies(block -> {
            assertThat(block.language()).isEqualTo("java");
            assertThat(block.example()).contains("election");
            assertThat(CodeBlocks.text(page, block)).isEqualTo("  int a;\n");
        });
    }

    @Test
    void aFenceLeftOpenBeforeTheNextBlockIsFound() {
        List<String> page = List.of("```bash", "mvn verify", "## Leases", "```java", "x();", "```", "```yaml", "a: 1", "```");
        assertThat(CodeBlocks.parse(page).unclosedFence()).contains(1);
    }

    @Test
    void aFenceLeftOpenAtTheEndIsFound() {
        assertThat(CodeBlocks.parse(List.of("```", "x")).unclosedFence()).contains(1);
    }

    @Test
    void aLongerFenceMayHoldAShorterOne() {
        List<String> page = List.of("````md", "```java", "x();", "```", "````");
        assertThat(CodeBlocks.parse(page).unclosedFence()).isEmpty();
        assertThat(CodeBlocks.parse(page).blocks()).singleElement().extracting(CodeBlocks.Block::language).isEqualTo("md");
    }

    @Test
    void aRegionJoinsItsPartsAndDropsHiddenLines() {
        List<String> source = List.of(
                "// docs:begin x", "import a.B;", "// docs:end x",
                "class C {", "    void m() {", "        // docs:begin x", "", "        B.go();",
                "        B.secret(); // docs:hide", "        // docs:end x", "    }", "}");
        assertThat(ExampleRegions.in(java.nio.file.Path.of("C.java"), source))
                .singleElement()
                .extracting(ExampleRegions.Region::text)
                .isEqualTo("import a.B;\n\nB.go();\n");
    }
}
