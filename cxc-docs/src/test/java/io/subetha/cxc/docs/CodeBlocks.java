package io.subetha.cxc.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown page. A Java block is an example when the line above its
 * fence (blank lines aside) is {@code <!-- example: NAME -->}, NAME a region of the example sources.
 */
final class CodeBlocks {

    private static final Pattern OPEN = Pattern.compile("^( *)(`{3,})\\s*(\\S*).*$");
    private static final Pattern EXAMPLE = Pattern.compile("^\\s*<!-- example: (\\S+) -->\\s*$");

    /**
     * One block: the fence's line (1-based), its language, the lines between the fences (from
     * {@code from}, 0-based, to {@code to}, exclusive), its indentation and the example it claims.
     */
    record Block(int line, String language, int from, int to, int indent, Optional<String> example) {}

    /** A page's blocks, or the line of a fence that is never closed. */
    record Parsed(List<Block> blocks, Optional<Integer> unclosedFence) {}

    private CodeBlocks() {}

    static Parsed parse(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = OPEN.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(2);
            int close = i + 1;
            while (close < lines.size() && !closes(lines.get(close), fence)
                    && !opensAgain(lines.get(close), fence)) {
                close++;
            }
            // A fence with a language inside a block of the same fence is the next block's
            // opening: the block above it was never closed (and the text between renders as code).
            if (close == lines.size() || opensAgain(lines.get(close), fence)) {
                return new Parsed(blocks, Optional.of(i + 1));
            }
            blocks.add(new Block(i + 1, open.group(3), i + 1, close, open.group(1).length(),
                    exampleAbove(lines, i)));
            i = close;
        }
        return new Parsed(blocks, Optional.empty());
    }

    private static boolean opensAgain(String line, String fence) {
        Matcher open = OPEN.matcher(line);
        return open.matches() && open.group(2).equals(fence) && !open.group(3).isEmpty();
    }

    private static boolean closes(String line, String fence) {
        String t = line.strip();
        return t.startsWith(fence) && t.chars().allMatch(c -> c == '`');
    }

    private static Optional<String> exampleAbove(List<String> lines, int fence) {
        int i = fence - 1;
        while (i >= 0 && lines.get(i).isBlank()) {
            i--;
        }
        if (i < 0) {
            return Optional.empty();
        }
        Matcher m = EXAMPLE.matcher(lines.get(i));
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** A block's text, its indentation taken off, one '\n' after each line. */
    static String text(List<String> lines, Block block) {
        StringBuilder text = new StringBuilder();
        for (String line : lines.subList(block.from(), block.to())) {
            String l = line.length() >= block.indent() && line.substring(0, block.indent()).isBlank()
                    ? line.substring(block.indent()) : line.stripLeading();
            text.append(l.stripTrailing()).append('\n');
        }
        return text.toString();
    }
}
