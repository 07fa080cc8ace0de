package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * A kind of primitive the starter declares by name: {@code cxc.<plural>.<name>.<setting>=<value>}
 * makes a bean {@code <name>} over {@code <cxc.directory>/<name><suffix>}. Its settings are one
 * typed class of {@link CxcProperties} ({@code D}), bound as Boot binds any property (a setting the
 * class does not have is refused, naming the ones it has), and mapped to the core settings record
 * ({@code S}) by {@link CxcSettings}. A new declarable primitive is a class in {@link
 * CxcProperties}, its mapping in {@link CxcSettings} and one entry in {@link
 * DeclaredPrimitivesRegistrar#DECLARABLE}.
 *
 * @param <P> the primitive
 * @param <D> its properties class in {@link CxcProperties}
 * @param <S> its core settings record
 */
final class DeclaredKind<P extends MappedPrimitive, D, S extends Record> {

    /** What the registrar knows when it binds: the starter's own files and switches. */
    interface Context {
        /** Whether this process beats the participants' heartbeat table. */
        boolean participates();

        /**
         * The switch that keeps this process out of the heartbeat table, as the user wrote it and
         * where: "cxc.leader.enabled=false (from class path resource [application.properties] -
         * 3:1)".
         */
        String notTakingPart();

        /** The participants' heartbeat table file, relative to {@code cxc.directory}. */
        Path participantsTable();
    }

    /** Maps one declaration's properties to its core settings: a method of {@link CxcSettings}. */
    interface SettingsMapping<D, S> {
        S settings(String prefix, D properties, Context context);
    }

    /** Opens a declared primitive's file when its bean is created. */
    interface Opener<P, S> {
        P open(Path file, S settings, CxcFileOptions options, BeanRegistry.SupplierContext beans);
    }

    /**
     * Makes the per-tick task over every declared bean of this kind, by name; {@code context}
     * reaches the application's beans (a scheduler's handlers).
     */
    interface TickTaskFactory<P, D, S> {
        TickTask create(
                Map<String, P> beans,
                Map<String, Declaration<D, S>> declarations,
                BeanRegistry.SupplierContext context);
    }

    /** One declaration, checked: its property prefix, its properties and its core settings. */
    record Declaration<D, S>(String prefix, D properties, S settings) {}

    final PrimitiveType<P, S> type;
    final Class<P> beanType;
    final Class<D> propertiesType;
    final String plural;
    final String suffix;
    final String example;
    private final SettingsMapping<D, S> mapping;
    private Set<String> suppliedByStarter = Set.of();
    private @Nullable Requirement requirement;
    @Nullable TickTaskFactory<P, D, S> tickTask;
    Class<? extends TickTask> tickTaskType = TickTask.class;
    Opener<P, S> opener;

    /** Settings components the file fixes at creation, with their property under the prefix. */
    Map<String, String> fixedAtCreation = Map.of();

    /** Components whose change is refused, with why it matters (see {@link CreationSettings}). */
    Map<String, String> refusedChange = Map.of();

    private record Requirement(
            Predicate<Context> met,
            Function<Context, String> reason,
            Function<Context, String> fix) {}

    /**
     * @param example a one-line declaration for error messages: "cxc.barriers.phases.capacity=8"
     */
    DeclaredKind(
            PrimitiveType<P, S> type,
            Class<P> beanType,
            Class<D> propertiesType,
            String plural,
            String suffix,
            String example,
            SettingsMapping<D, S> mapping) {
        this.type = type;
        this.beanType = beanType;
        this.propertiesType = propertiesType;
        this.plural = plural;
        this.suffix = suffix;
        this.example = example;
        this.mapping = mapping;
        this.opener =
                (file, settings, options, beans) -> type.openOrCreate(file, settings, options);
    }

    /** Settings of the core record the starter fills itself: a property for one is refused. */
    DeclaredKind<P, D, S> supplying(String... properties) {
        this.suppliedByStarter = Set.of(properties);
        return this;
    }

    /** Refused, naming what the user wrote, unless {@code met}: a watchdog needs the table. */
    DeclaredKind<P, D, S> requiring(
            Predicate<Context> met,
            Function<Context, String> reason,
            Function<Context, String> fix) {
        this.requirement = new Requirement(met, reason, fix);
        return this;
    }

    /**
     * The settings components the file fixes when it is created, as {@code "capacity"} (the
     * property is its kebab case) or {@code "graceEpochs=grace-intervals"}: a file made with other
     * values is opened with its own, and the difference warned.
     */
    DeclaredKind<P, D, S> fixedAtCreation(String... components) {
        Map<String, String> fixed = new java.util.LinkedHashMap<>();
        for (String component : components) {
            int eq = component.indexOf('=');
            fixed.put(
                    eq < 0 ? component : component.substring(0, eq),
                    eq < 0 ? CxcSettings.kebab(component) : component.substring(eq + 1));
        }
        this.fixedAtCreation = Map.copyOf(fixed);
        return this;
    }

    /** A component whose difference from the file's is refused, and {@code why} it matters. */
    DeclaredKind<P, D, S> refusingChangeOf(String component, String why) {
        this.refusedChange = Map.of(component, why);
        return this;
    }

    /** Opens the file otherwise than {@link PrimitiveType#openOrCreate}, e.g. sharing a bean. */
    DeclaredKind<P, D, S> openedBy(Opener<P, S> value) {
        this.opener = value;
        return this;
    }

    DeclaredKind<P, D, S> withTickTask(TickTaskFactory<P, D, S> factory) {
        this.tickTask = factory;
        return this;
    }

    /**
     * A tick task that is more than one (a lifecycle bean too): registered as {@code type}, so the
     * context finds it as that.
     */
    DeclaredKind<P, D, S> withTickTask(
            Class<? extends TickTask> type, TickTaskFactory<P, D, S> factory) {
        this.tickTaskType = type;
        return withTickTask(factory);
    }

    String prefix(String name) {
        return "cxc." + plural + "." + name;
    }

    /**
     * Every {@code cxc.<plural>.<name>}, bound to the properties class; a value that does not
     * convert, or a setting the class does not have, is refused naming the property.
     */
    Map<String, D> bind(Binder binder) {
        try {
            return binder.bind(
                            "cxc." + plural,
                            Bindable.mapOf(String.class, propertiesType),
                            new NoUnboundElementsBindHandler(BindHandler.DEFAULT))
                    .orElse(Map.of());
        } catch (BindException e) {
            throw refused(e);
        }
    }

    /**
     * The declaration of {@code name}, its settings mapped and checked; throws naming the property.
     */
    Declaration<D, S> declare(String name, D properties, Context context) {
        String prefix = prefix(name);
        if (requirement != null && !requirement.met().test(context)) {
            throw new InvalidCxcPropertyException(
                    prefix,
                    name,
                    requirement.reason().apply(context),
                    requirement.fix().apply(context));
        }
        return new Declaration<>(prefix, properties, mapping.settings(prefix, properties, context));
    }

    /** The property names of every setting a user may give, as the properties class orders them. */
    List<String> settingNames() {
        List<String> names = new ArrayList<>();
        // Its own, then those it shares with other kinds (a worker pool's).
        for (Class<?> c = propertiesType; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    names.add(CxcSettings.kebab(field.getName()));
                }
            }
        }
        return names;
    }

    private InvalidCxcPropertyException refused(BindException e) {
        if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
            ConfigurationProperty first = unbound.getUnboundProperties().iterator().next();
            ConfigurationPropertyName name = first.getName();
            String setting = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
            if (suppliedByStarter.contains(setting)) {
                return new InvalidCxcPropertyException(
                        name.toString(),
                        first.getValue(),
                        "the starter sets it itself",
                        "Remove " + name + ".");
            }
            return new InvalidCxcPropertyException(
                    name.toString(),
                    first.getValue(),
                    "it is not a setting of "
                            + type.kind().withArticle()
                            + "; its settings are "
                            + String.join(", ", settingNames()),
                    "Use one of them, e.g. " + example + ".");
        }
        Class<?> target = e.getTarget().getType().resolve(Object.class);
        String property = e.getName().toString();
        return new InvalidCxcPropertyException(
                property,
                e.getProperty() == null ? null : e.getProperty().getValue(),
                "it is not a valid " + target.getSimpleName().toLowerCase(Locale.ROOT),
                "Set " + property + " to a " + target.getSimpleName() + ".");
    }
}
