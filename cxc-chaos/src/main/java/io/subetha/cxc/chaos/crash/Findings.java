package io.subetha.cxc.chaos.crash;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the check found: each family's figures and every broken promise. */
public final class Findings {

    /** One broken promise, said in the family's words. */
    public record Violation(Family family, String what) {
        @Override
        public String toString() {
            return family + ": " + what;
        }
    }

    private final List<Violation> violations = new ArrayList<>();
    private final Map<Family, Map<String, Long>> figures = new EnumMap<>(Family.class);

    void violation(Family family, String what) {
        violations.add(new Violation(family, what));
    }

    void figure(Family family, String name, long value) {
        figures.computeIfAbsent(family, f -> new LinkedHashMap<>()).put(name, value);
    }

    public List<Violation> violations() {
        return List.copyOf(violations);
    }

    public List<Violation> violations(Family family) {
        return violations.stream().filter(v -> v.family() == family).toList();
    }

    public Map<String, Long> figures(Family family) {
        return figures.getOrDefault(family, Map.of());
    }
}
