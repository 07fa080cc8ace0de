package io.subetha.cxc.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.docs.CodeBlocks.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every link from one page of the repository to another file resolves, and a link to a heading
 * names one the page has (as GitHub makes its anchors), so reorganising a page cannot leave the
 * README or the guide pointing nowhere.
 */
class LinksInPagesTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+?)\\s*#*\\s*$");

    @Test
    void everyLinkToAFileOfTheRepositoryResolves() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path page : Pages.all()) {
            List<String> lines = Files.readAllLines(page);
            Set<Integer> inCode = codeLines(lines);
            for (int i = 0; i < lines.size(); i++) {
                if (inCode.contains(i)) {
                    continue;
                }
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    check(page, i + 1, m.group(1)).ifPresent(problems::add);
                }
            }
        }
        assertThat(problems).as(String.join("\n", problems)).isEmpty();
    }

    private static java.util.Optional<String> check(Path page, int line, String target) throws IOException {
        if (target.matches("^[a-z]+:.*")) {
            return java.util.Optional.empty(); // http:, https:, mailto:
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        String where = Pages.relative(page) + ":" + line + ": ";
        if (!Files.exists(file)) {
            return java.util.Optional.of(where + target + " names no file (" + Pages.relative(file) + ")");
        }
        if (anchor != null && file.toString().endsWith(".md") && !anchors(file).contains(anchor)) {
            return java.util.Optional.of(where + target + ": " + Pages.relative(file)
                    + " has no heading whose anchor is #" + anchor);
        }
        return java.util.Optional.empty();
    }

    /** The anchors GitHub gives a page's headings. */
    static Set<String> anchors(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        Set<Integer> inCode = codeLines(lines);
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = HEADING.matcher(lines.get(i));
            if (inCode.contains(i) || !m.matches()) {
                continue;
            }
            String slug = m.group(1).toLowerCase()
                    .replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1")
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }

    private static Set<Integer> codeLines(List<String> lines) {
        Set<Integer> inCode = new HashSet<>();
        for (Block block : CodeBlocks.parse(lines).blocks()) {
            for (int i = block.from() - 1; i <= block.to(); i++) {
                inCode.add(i);
            }
        }
        return inCode;
    }
}
