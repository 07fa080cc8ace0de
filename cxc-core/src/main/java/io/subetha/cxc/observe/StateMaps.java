package io.subetha.cxc.observe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Edits of a {@code describe()} map, for a primitive's {@code inspect}: an entry put after another,
 * each map of a list extended. Every result is a new ordered map; the input is left as it was.
 */
public final class StateMaps {

    private StateMaps() {}

    /** {@code map} with {@code key} right after {@code after} (at the end if absent). */
    public static Map<String, Object> insertAfter(
            Map<String, Object> map, String after, String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach(
                (k, v) -> {
                    copy.put(k, v);
                    if (k.equals(after)) {
                        copy.put(key, value);
                    }
                });
        copy.putIfAbsent(key, value);
        return copy;
    }

    /** {@code state} with each map in its list under {@code key} extended by {@code extra}. */
    public static Map<String, Object> withEach(
            Map<String, Object> state,
            String key,
            Function<Map<String, Object>, Map<String, Object>> extra) {
        if (!(state.get(key) instanceof List<?> list)) {
            return state;
        }
        List<Map<String, Object>> extended = new ArrayList<>();
        for (Object item : list) {
            @SuppressWarnings("unchecked")
            Map<String, Object> entry = (Map<String, Object>) item;
            Map<String, Object> copy = new LinkedHashMap<>(entry);
            copy.putAll(extra.apply(entry));
            extended.add(copy);
        }
        Map<String, Object> copy = new LinkedHashMap<>(state);
        copy.put(key, extended);
        return copy;
    }

    /** A two-entry ordered map. */
    public static Map<String, Object> orderedOf(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(k1, v1);
        map.put(k2, v2);
        return map;
    }

    /** A described number as a long; 0 where absent. */
    public static long number(@Nullable Object value) {
        return value instanceof Number n ? n.longValue() : 0;
    }
}
