package io.subetha.cxc.chaos.crash;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A crash run's figures and verdict: the faults injected, each family's operations and figures, and
 * every violation found.
 */
public record CrashReport(
        String setup,
        long kills,
        long stops,
        long starts,
        long seconds,
        int tornLines,
        Findings findings) {

    public boolean safe() {
        return findings.violations().isEmpty();
    }

    public long operations() {
        long total = 0;
        for (Family f : Family.values()) {
            total += findings.figures(f).getOrDefault("operations", 0L);
        }
        return total;
    }

    public String render() {
        StringBuilder text = new StringBuilder();
        text.append("crash run: ").append(setup).append('\n');
        text.append(
                String.format(
                        Locale.ROOT,
                        "faults: %d kills (SIGKILL), %d stops (SIGSTOP past the grace, then"
                                + " SIGCONT), %d worker starts, %d s; %d operations; %d torn"
                                + " last lines%n",
                        kills,
                        stops,
                        starts,
                        seconds,
                        operations(),
                        tornLines));
        for (Family f : Family.values()) {
            text.append(String.format(Locale.ROOT, "  %-9s", f.name().toLowerCase(Locale.ROOT)));
            for (Map.Entry<String, Long> e : findings.figures(f).entrySet()) {
                text.append(' ').append(e.getKey()).append('=').append(e.getValue());
            }
            text.append('\n');
        }
        List<Findings.Violation> violations = findings.violations();
        text.append("violations: ").append(violations.size()).append('\n');
        violations.stream().limit(50).forEach(v -> text.append("  ").append(v).append('\n'));
        return text.toString();
    }
}
