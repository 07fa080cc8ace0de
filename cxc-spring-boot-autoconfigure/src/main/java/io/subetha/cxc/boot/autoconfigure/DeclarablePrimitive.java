package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveType;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;

/**
 * A primitive the starter declares by name: {@code cxc.<plural>.<name>.<setting>=<value>} makes a
 * bean {@code <name>} over {@code <cxc.directory>/<name><suffix>}. Its settings are the core type's
 * settings record, bound component by component ({@code heartbeatInterval} from {@code
 * heartbeat-interval}, converted as Boot converts any property), with the record's defaults for
 * what is not set; the record's constructor is the one place the limits live, and its {@link
 * CxcSettingsException} is reported against the property the value came from. A new declarable
 * primitive is one entry in {@link DeclaredPrimitivesRegistrar#DECLARABLE}.
 *
 * @param <P> the primitive
 * @param <S> its settings record
 */
final class DeclarablePrimitive<P extends MappedPrimitive, S extends Record> {

    private static final ConversionService CONVERSION =
            ApplicationConversionService.getSharedInstance();

    /** What the registrar knows when it binds: the starter's own files and switches. */
    interface Context {
        /** Whether this process beats the participants' heartbeat table. */
        boolean participates();

        /** The participants' heartbeat table file, relative to {@code cxc.directory}. */
        java.nio.file.Path participantsTable();
    }

    /** A setting the starter adds beside the core ones (used by its tick task, not the file). */
    record Extra(
            String property,
            Class<?> type,
            Object defaultValue,
            Predicate<Object> valid,
            String rule,
            String fix) {}

    /** Opens a declared primitive's file when its bean is created. */
    interface Opener<P, S> {
        P open(
                java.nio.file.Path file,
                S settings,
                io.subetha.cxc.mmf.CxcFileOptions options,
                org.springframework.beans.factory.BeanRegistry.SupplierContext beans);
    }

    /**
     * Makes the per-tick task over every declared bean of this kind, by name; {@code context}
     * reaches the application's beans (a scheduler's handlers).
     */
    interface TickTaskFactory<P> {
        TickTask create(
                Map<String, P> beans,
                Map<String, Map<String, Object>> extras,
                org.springframework.beans.factory.BeanRegistry.SupplierContext context);
    }

    final PrimitiveType<P, S> type;
    final Class<P> beanType;
    final String plural;
    final String suffix;
    final String example;
    private final Class<S> settingsType;
    private final Map<String, Function<Context, Object>> supplied = new LinkedHashMap<>();
    private final Map<String, String> renamed = new LinkedHashMap<>();
    private final List<Extra> extras = new ArrayList<>();
    private @Nullable Predicate<Context> requirement;
    private String requirementReason = "";
    private String requirementFix = "";
    @Nullable TickTaskFactory<P> tickTask;
    Class<? extends TickTask> tickTaskType = TickTask.class;
    Opener<P, S> opener;

    private DeclarablePrimitive(
            PrimitiveType<P, S> type,
            Class<P> beanType,
            Class<S> settingsType,
            String plural,
            String suffix,
            String example) {
        this.type = type;
        this.beanType = beanType;
        this.settingsType = settingsType;
        this.plural = plural;
        this.suffix = suffix;
        this.example = example;
        this.opener =
                (file, settings, options, beans) -> type.openOrCreate(file, settings, options);
    }

    /**
     * @param example a one-line declaration for error messages: "cxc.barriers.phases.capacity=8"
     */
    @SuppressWarnings("unchecked")
    static <P extends MappedPrimitive, S extends Record> DeclarablePrimitive<P, S> of(
            PrimitiveType<P, S> type,
            Class<P> beanType,
            String plural,
            String suffix,
            String example) {
        return new DeclarablePrimitive<>(
                type, beanType, (Class<S>) type.defaults().getClass(), plural, suffix, example);
    }

    /** A settings component the starter fills itself; a property for it is refused. */
    DeclarablePrimitive<P, S> supplying(String component, Function<Context, Object> value) {
        supplied.put(component, value);
        return this;
    }

    /**
     * Names a settings component's property otherwise than its kebab-case name, where that name
     * means something else elsewhere in {@code cxc.*} (one meaning per name).
     */
    DeclarablePrimitive<P, S> naming(String component, String property) {
        renamed.put(component, property);
        return this;
    }

    /** The property a settings component is bound from. */
    String property(String component) {
        return renamed.getOrDefault(component, kebab(component));
    }

    DeclarablePrimitive<P, S> withExtra(Extra extra) {
        extras.add(extra);
        return this;
    }

    DeclarablePrimitive<P, S> requiring(Predicate<Context> met, String reason, String fix) {
        this.requirement = met;
        this.requirementReason = reason;
        this.requirementFix = fix;
        return this;
    }

    /** Opens the file otherwise than {@link PrimitiveType#openOrCreate}, e.g. sharing a bean. */
    DeclarablePrimitive<P, S> openedBy(Opener<P, S> value) {
        this.opener = value;
        return this;
    }

    DeclarablePrimitive<P, S> withTickTask(TickTaskFactory<P> factory) {
        this.tickTask = factory;
        return this;
    }

    /**
     * A tick task that is more than one (a lifecycle bean too): registered as {@code type}, so the
     * context finds it as that.
     */
    DeclarablePrimitive<P, S> withTickTask(
            Class<? extends TickTask> type, TickTaskFactory<P> factory) {
        this.tickTaskType = type;
        return withTickTask(factory);
    }

    /** The core settings record, bound by reflection (so it needs runtime hints). */
    Class<S> settingsType() {
        return settingsType;
    }

    String prefix(String name) {
        return "cxc." + plural + "." + name;
    }

    /** The settings and extras declared for {@code name}, checked; throws naming the property. */
    Declaration<S> bind(String name, Map<String, String> properties, Context context) {
        String prefix = prefix(name);
        if (requirement != null && !requirement.test(context)) {
            throw new InvalidCxcPropertyException(prefix, name, requirementReason, requirementFix);
        }
        Map<String, String> unused = new LinkedHashMap<>(properties);
        RecordComponent[] components = settingsType.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent component = components[i];
            types[i] = component.getType();
            String property = property(component.getName());
            String raw = unused.remove(property);
            Function<Context, Object> suppliedValue = supplied.get(component.getName());
            if (suppliedValue != null) {
                if (raw != null) {
                    throw new InvalidCxcPropertyException(
                            prefix + "." + property,
                            raw,
                            "the starter sets it itself",
                            "Remove " + prefix + "." + property + ".");
                }
                values[i] = suppliedValue.apply(context);
            } else if (raw != null) {
                values[i] = convert(prefix + "." + property, raw, component.getType());
            } else {
                values[i] = accessor(component, type.defaults());
            }
        }
        Map<String, Object> extraValues = new LinkedHashMap<>();
        for (Extra extra : extras) {
            String raw = unused.remove(extra.property());
            Object value =
                    raw == null
                            ? extra.defaultValue()
                            : convert(prefix + "." + extra.property(), raw, extra.type());
            if (!extra.valid().test(value)) {
                throw new InvalidCxcPropertyException(
                        prefix + "." + extra.property(),
                        value,
                        extra.rule(),
                        "Set " + prefix + "." + extra.property() + " " + extra.fix());
            }
            extraValues.put(extra.property(), value);
        }
        if (!unused.isEmpty()) {
            String property = unused.keySet().iterator().next();
            throw new InvalidCxcPropertyException(
                    prefix + "." + property,
                    unused.get(property),
                    "it is not a setting of "
                            + type.kind().withArticle()
                            + "; its settings are "
                            + settingNames(),
                    "Use one of them, e.g. " + example + ".");
        }
        try {
            Constructor<S> constructor = settingsType.getDeclaredConstructor(types);
            return new Declaration<>(constructor.newInstance(values), extraValues);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof CxcSettingsException bad) {
                String property = property(bad.setting());
                @Nullable Object value =
                        properties.containsKey(property)
                                ? properties.get(property)
                                : defaultOf(bad.setting());
                throw new InvalidCxcPropertyException(
                        prefix + "." + property,
                        value,
                        bad.getMessage().replace(bad.setting(), property),
                        "Set "
                                + prefix
                                + "."
                                + property
                                + " within the limit, e.g. "
                                + defaultOf(bad.setting())
                                + " (the default).");
            }
            throw new IllegalStateException("cannot make " + settingsType.getName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make " + settingsType.getName(), e);
        }
    }

    /** The property names of every setting a user may give: core's then the starter's. */
    /** The defaults of the starter's extra settings, by property ({@code grace-epochs}). */
    Map<String, Object> extraDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        extras.forEach(extra -> defaults.put(extra.property(), extra.defaultValue()));
        return defaults;
    }

    List<String> settingNames() {
        List<String> names = new ArrayList<>();
        for (RecordComponent component : settingsType.getRecordComponents()) {
            if (!supplied.containsKey(component.getName())) {
                names.add(property(component.getName()));
            }
        }
        extras.forEach(extra -> names.add(extra.property()));
        return names;
    }

    private @Nullable Object defaultOf(String component) {
        for (RecordComponent c : settingsType.getRecordComponents()) {
            if (c.getName().equals(component)) {
                return accessor(c, type.defaults());
            }
        }
        return null;
    }

    private static Object convert(String property, String raw, Class<?> target) {
        try {
            Object value = CONVERSION.convert(raw.trim(), target);
            if (value == null) {
                throw new IllegalArgumentException("empty");
            }
            return value;
        } catch (ConversionException | IllegalArgumentException e) {
            throw new InvalidCxcPropertyException(
                    property,
                    raw,
                    "it is not a valid " + target.getSimpleName().toLowerCase(Locale.ROOT),
                    "Set " + property + " to a " + target.getSimpleName() + ".");
        }
    }

    private static Object accessor(RecordComponent component, Object record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** heartbeatInterval → heartbeat-interval, as Boot names properties. */
    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A checked declaration: the core settings and the starter's extras. */
    record Declaration<S>(S settings, Map<String, Object> extras) {}
}
