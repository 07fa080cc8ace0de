package io.subetha.cxc.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.docs.CodeBlocks.Block;
import io.subetha.cxc.docs.ExampleRegions.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of README.md and of the guide is an example this module compiles (and, where
 * its test runs it, runs): the block is the tagged region of an example source, line for line. A
 * page whose block drifted from its source fails here, saying how to copy the sources into the
 * pages. Every page's code fences are closed.
 */
class ExamplesInPagesTest {

    static final String UPDATE =
            "mvn -B -ntp -pl cxc-docs -am test -Dtest=ExamplesInPagesTest"
                    + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true";

    @Test
    void everyPageClosesEveryCodeFence() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Path page : Pages.all()) {
            CodeBlocks.parse(Files.readAllLines(page)).unclosedFence().ifPresent(line ->
                    problems.add(Pages.relative(page) + ":" + line
                            + ": this code fence is not closed before the next one opens (or the page ends), so the text after it renders as code"));
        }
        assertThat(problems).as(String.join("\n", problems)).isEmpty();
    }

    @Test
    void everyJavaBlockIsTheRegionOfACompiledExample() throws Exception {
        Map<String, Region> regions = ExampleRegions.in(Pages.exampleSources());
        boolean update = Boolean.getBoolean("docs.update");
        List<String> problems = new ArrayList<>();
        for (Path page : Pages.withExamples()) {
            List<String> lines = new ArrayList<>(Files.readAllLines(page));
            List<Block> blocks = CodeBlocks.parse(lines).blocks();
            boolean changed = false;
            // Back to front, so a rewritten block does not move the ones still to check.
            for (int b = blocks.size() - 1; b >= 0; b--) {
                Block block = blocks.get(b);
                if (!block.language().equals("java")) {
                    continue;
                }
                String where = Pages.relative(page) + ":" + block.line();
                if (block.example().isEmpty()) {
                    problems.add(where + ": a Java block without `<!-- example: NAME -->` above it:"
                            + " put the code in a source under cxc-docs/src/test/java between"
                            + " `// docs:begin NAME` and `// docs:end NAME`, and name it above the block");
                    continue;
                }
                Region region = regions.get(block.example().get());
                if (region == null) {
                    problems.add(where + ": no example region '" + block.example().get()
                            + "' in cxc-docs/src/test/java (`// docs:begin " + block.example().get() + "`)");
                    continue;
                }
                if (CodeBlocks.text(lines, block).equals(region.text())) {
                    continue;
                }
                if (update) {
                    String indent = " ".repeat(block.indent());
                    List<String> replacement = region.text().lines()
                            .map(l -> l.isEmpty() ? l : indent + l).toList();
                    lines.subList(block.from(), block.to()).clear();
                    lines.addAll(block.from(), replacement);
                    changed = true;
                } else {
                    problems.add(where + ": the block differs from example '" + region.name()
                            + "' (" + Pages.relative(region.source()) + ":" + region.line()
                            + "); edit the source, then copy it into the pages with:\n    " + UPDATE);
                }
            }
            if (changed) {
                Files.write(page, lines);
            }
        }
        assertThat(problems).as(String.join("\n", problems)).isEmpty();
    }
}
