package io.subetha.cxc.docs;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.util.ReflectionUtils;

/**
 * docs/guide/properties.md, made from the configuration metadata every cxc module ships
 * ({@code META-INF/spring-configuration-metadata.json}): each property's type, default and
 * description. A property that declares primitives by name ({@code cxc.schedulers}, a map) has its
 * entries' settings listed too, read from the entry class (its defaults from a new instance, its
 * descriptions from the field's Javadoc in the source, as the metadata processor reads them).
 */
final class PropertiesReference {

    static final String PAGE = "docs/guide/properties.md";

    /** One row: the property, its type, its default as typed in a properties file, what it does. */
    record Row(String name, String type, String defaultValue, String description) {}

    private PropertiesReference() {}

    static String page() {
        List<Row> rows = rows();
        Map<String, List<Row>> byGroup = new TreeMap<>();
        for (Row row : rows) {
            byGroup.computeIfAbsent(group(row.name()), g -> new ArrayList<>()).add(row);
        }
        StringBuilder page = new StringBuilder();
        page.append("# Properties reference\n\n")
                .append("<!-- Generated from the configuration metadata by PropertiesReferenceTest;"
                        + " do not edit. Regenerate with:\n     ")
                .append(PropertiesReferenceTest.UPDATE)
                .append(" -->\n\n")
                .append("Every property the cxc modules read, from the configuration metadata they"
                        + " ship (so an IDE completes the same names). `<name>` is a name you choose:"
                        + " each declares a primitive, a bean of that name over"
                        + " `{cxc.directory}/<name>.<kind>`. A setting \"fixed when the file is"
                        + " created\" is read from the file by every later process; to change it,"
                        + " stop every copy and remove the file.\n");
        for (Map.Entry<String, List<Row>> group : byGroup.entrySet()) {
            page.append("\n## `").append(group.getKey()).append("`\n\n")
                    .append("| property | type | default | description |\n")
                    .append("|---|---|---|---|\n");
            for (Row row : group.getValue()) {
                page.append("| `").append(row.name()).append("` | ").append(row.type())
                        .append(" | ").append(row.defaultValue().isEmpty() ? "" : "`" + row.defaultValue() + "`")
                        .append(" | ").append(row.description().replace("|", "\\|")).append(" |\n");
            }
        }
        return page.toString();
    }

    private static String group(String property) {
        String[] parts = property.split("\\.");
        if (parts[0].equals("management")) {
            return "management";
        }
        return parts.length > 2 ? parts[0] + "." + parts[1] : parts[0];
    }

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map<String, Object> property : metadataProperties()) {
            String name = (String) property.get("name");
            String type = (String) property.get("type");
            String description = Optional.ofNullable((String) property.get("description")).orElse("");
            Optional<Class<?>> entry = mapValueClass(type);
            if (entry.isPresent()) {
                rows.add(new Row(name + ".<name>", "", "", description));
                entryRows(name + ".<name>", entry.get(), rows);
                continue;
            }
            String dflt = property.containsKey("defaultValue")
                    ? String.valueOf(property.get("defaultValue"))
                    : defaultFromSource((String) property.get("sourceType"), name).orElse("");
            rows.add(new Row(name, simpleType(type), dflt, description));
        }
        rows.sort(Comparator.comparing(Row::name));
        return rows;
    }

    /** Every cxc property of every metadata file on the classpath, by name, once. */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> metadataProperties() {
        Map<String, Map<String, Object>> byName = new TreeMap<>();
        try {
            for (URL url : Collections.list(PropertiesReference.class.getClassLoader()
                    .getResources("META-INF/spring-configuration-metadata.json"))) {
                String json;
                try (InputStream in = url.openStream()) {
                    json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                Object properties = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
                if (properties == null) {
                    continue;
                }
                for (Map<String, Object> p : (List<Map<String, Object>>) properties) {
                    String name = (String) p.get("name");
                    if (name.startsWith("cxc.") || name.contains(".cxc.") || name.contains(".cxcjobs.")) {
                        byName.putIfAbsent(name, p);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ArrayList<>(byName.values());
    }

    private static Optional<Class<?>> mapValueClass(String type) {
        Matcher m = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,(io\\.subetha\\.[\\w.$]+)>")
                .matcher(type == null ? "" : type);
        return m.matches() ? Optional.of(load(m.group(1))) : Optional.empty();
    }

    private static void entryRows(String prefix, Class<?> type, List<Row> rows) {
        Object defaults = BeanUtils.instantiateClass(type);
        for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
            if (d.getReadMethod() == null || d.getName().equals("class")) {
                continue;
            }
            Field field = ReflectionUtils.findField(type, d.getName());
            if (field == null) {
                continue;
            }
            String name = prefix + "." + kebab(d.getName());
            String description = javadoc(field).orElse("");
            Object value = ReflectionUtils.invokeMethod(d.getReadMethod(), defaults);
            Class<?> propertyType = d.getPropertyType();
            if (Map.class.isAssignableFrom(propertyType)) {
                Type valueType = ((ParameterizedType) field.getGenericType()).getActualTypeArguments()[1];
                String key = name + ".<" + (d.getName().equals("recurring") ? "job" : "type") + ">";
                if (valueType instanceof Class<?> c && c.getName().startsWith("io.subetha.")) {
                    rows.add(new Row(key, "", "", description));
                    entryRows(key, c, rows);
                } else {
                    rows.add(new Row(key, simpleType(valueType.getTypeName()), "", description));
                }
            } else if (propertyType.getName().startsWith("io.subetha.") && !propertyType.isEnum()) {
                entryRows(name, propertyType, rows);
            } else if (d.getWriteMethod() != null) {
                rows.add(new Row(name, simpleType(propertyType.getName()), format(value), description));
            }
        }
    }

    private static Optional<String> defaultFromSource(String sourceType, String property) {
        if (sourceType == null) {
            return Optional.empty();
        }
        Class<?> type = load(sourceType);
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            return Optional.empty();
        }
        try {
            Object instance = BeanUtils.instantiateClass(type);
            String last = property.substring(property.lastIndexOf('.') + 1);
            PropertyDescriptor d = BeanUtils.getPropertyDescriptor(type, camel(last));
            if (d == null || d.getReadMethod() == null) {
                return Optional.empty();
            }
            Object value = ReflectionUtils.invokeMethod(d.getReadMethod(), instance);
            return Optional.of(format(value));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    static String format(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Duration d) {
            if (d.isZero()) {
                return "0s";
            }
            long ms = d.toMillis();
            if (ms % 3_600_000 == 0) {
                return ms / 3_600_000 + "h";
            }
            if (ms % 60_000 == 0) {
                return ms / 60_000 + "m";
            }
            if (ms % 1_000 == 0) {
                return ms / 1_000 + "s";
            }
            return ms + "ms";
        }
        if (value instanceof Enum<?> e) {
            return e.name().toLowerCase().replace('_', '-');
        }
        if (value instanceof Map<?, ?> m && m.isEmpty()) {
            return "";
        }
        if (value.equals(java.time.ZoneId.systemDefault().getId())) {
            return ""; // this machine's zone: the description says what the default is
        }
        return String.valueOf(value);
    }

    private static String simpleType(String type) {
        if (type == null) {
            return "";
        }
        String simple = type.replaceAll("[\\w.]+[.$](\\w+)", "$1");
        return "`" + simple + "`";
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    private static String camel(String kebab) {
        StringBuilder s = new StringBuilder();
        boolean up = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                s.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return s.toString();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, PropertiesReference.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the metadata names " + name + ", not on the classpath", e);
        }
    }

    /** The Javadoc of a field, from its class's source in this repository, as one line. */
    static Optional<String> javadoc(Field field) {
        Class<?> declaring = field.getDeclaringClass();
        Class<?> top = declaring;
        while (top.getEnclosingClass() != null) {
            top = top.getEnclosingClass();
        }
        Optional<Path> source = sourceOf(top);
        if (source.isEmpty()) {
            return Optional.empty();
        }
        String text;
        try {
            text = Files.readString(source.get());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int from = declaring == top ? 0 : indexOfClass(text, declaring.getSimpleName());
        Matcher m = Pattern.compile("/\\*\\*((?:(?!\\*/).)*)\\*/\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*private\\s+[^;=(]*\\b"
                        + Pattern.quote(field.getName()) + "\\s*[=;]", Pattern.DOTALL)
                .matcher(text);
        if (!m.find(Math.max(from, 0))) {
            return Optional.empty();
        }
        return Optional.of(clean(m.group(1)));
    }

    private static int indexOfClass(String text, String simpleName) {
        Matcher m = Pattern.compile("\\bclass " + Pattern.quote(simpleName) + "\\b").matcher(text);
        return m.find() ? m.start() : 0;
    }

    private static Optional<Path> sourceOf(Class<?> top) {
        String relative = "src/main/java/" + top.getName().replace('.', '/') + ".java";
        try (Stream<Path> modules = Files.list(Pages.root())) {
            return modules.map(m -> m.resolve(relative)).filter(Files::isRegularFile).findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String clean(String javadoc) {
        String text = javadoc.lines().map(l -> l.strip().replaceFirst("^\\*\\s?", ""))
                .reduce((a, b) -> a + " " + b).orElse("").strip().replaceAll("\\s+", " ");
        text = text.replaceAll("\\{@code ([^}]*)}", "`$1`");
        text = text.replaceAll("\\{@link(?:plain)? [\\w.]*#?([^} ]*)(?: ([^}]*))?}", "$1");
        text = text.replaceAll("\\{@literal ([^}]*)}", "$1");
        text = text.replaceAll("<[^>]+>", "");
        return text;
    }

    static Map<String, String> asMap(List<Row> rows) {
        Map<String, String> m = new LinkedHashMap<>();
        rows.forEach(r -> m.put(r.name(), r.defaultValue()));
        return m;
    }
}
