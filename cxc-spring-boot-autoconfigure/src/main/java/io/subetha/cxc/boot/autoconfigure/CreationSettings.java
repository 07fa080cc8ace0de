package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A declared primitive whose file already exists, made with other creation settings: a rolling
 * deploy that changed {@code cxc.barriers.phases.capacity} while copies of the old version still
 * run. Every copy must open one file the same way, so the file wins: its settings are opened, and a
 * WARN names the property, the declared value and the file's (as a changed tick interval does).
 *
 * <p>Refused instead (an {@link InvalidCxcPropertyException}, which the failure analyzer turns into
 * a description and an action) where the difference changes what the file means rather than how big
 * it is: a watchdog's heartbeat table. Its assignments name slots of that table; opened over
 * another table, its scans would judge the work's owners by the wrong participants and move work
 * away from live ones, or leave a dead one's work stranded.
 *
 * <p>Of a kind typed by the application's codecs, only the settings it fixes at creation besides
 * its codecs are reconciled (an event log's capacity); the file records the codecs only as a
 * fingerprint, which the open checks. A scheduler fixes none here and keeps its own checks.
 */
final class CreationSettings {

    private static final Log logger = LogFactory.getLog(CreationSettings.class);

    private CreationSettings() {}

    /**
     * The settings to open {@code file} with: {@code declared}, with each component the file fixes
     * at creation replaced by the file's value (warned when it differs).
     */
    static <S extends Record> S reconcile(
            DeclaredKind<?, ?, S> kind,
            String prefix,
            S declared,
            Path file,
            CxcFileOptions options,
            Map<String, String> meaningProperties) {
        if (kind.fixedAtCreation.isEmpty()) {
            return declared;
        }
        S recorded;
        try {
            recorded = kind.type.recordedSettings(file, options);
        } catch (RuntimeException e) {
            return declared; // not readable as this kind: the open says why, naming the file
        }
        RecordComponent[] components = declared.getClass().getRecordComponents();
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent component = components[i];
            Object mine = read(component, declared);
            Object files = read(component, recorded);
            values[i] = mine;
            String meaning = kind.refusedChange.get(component.getName());
            if (meaning != null && !sameMeaning(file, mine, files)) {
                String property = meaningProperties.getOrDefault(component.getName(), prefix);
                throw new InvalidCxcPropertyException(
                        property,
                        String.valueOf(mine),
                        file
                                + " was created with "
                                + component.getName()
                                + " "
                                + files
                                + ", and this process's is "
                                + mine
                                + ": "
                                + meaning,
                        "Set "
                                + property
                                + " as the copies that made the file have it, or stop every copy"
                                + " and remove "
                                + file
                                + " to make it anew.");
            }
            String suffix = kind.fixedAtCreation.get(component.getName());
            if (suffix != null && !Objects.equals(mine, files)) {
                values[i] = files;
                logger.warn(
                        "cxc: "
                                + file
                                + " was created with another "
                                + component.getName()
                                + ": this process declares "
                                + prefix
                                + "."
                                + suffix
                                + "="
                                + mine
                                + ", and opens the file's "
                                + files
                                + ", as every copy sharing the file must. To change it, stop"
                                + " every copy, remove the file and start them with the new"
                                + " value.");
            }
        }
        return construct(declared, components, values);
    }

    /** Two paths name the same file when resolved beside {@code file}. */
    private static boolean sameMeaning(Path file, Object mine, Object files) {
        if (mine instanceof Path a && files instanceof Path b) {
            return file.resolveSibling(a).normalize().equals(file.resolveSibling(b).normalize());
        }
        return Objects.equals(mine, files);
    }

    private static Object read(RecordComponent component, Record record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + component, e);
        }
    }

    @SuppressWarnings("unchecked") // the canonical constructor of the declared settings' class
    private static <S extends Record> S construct(
            S declared, RecordComponent[] components, Object[] values) {
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
        }
        try {
            Constructor<?> canonical = declared.getClass().getDeclaredConstructor(types);
            return (S) canonical.newInstance(values);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r
                    ? r
                    : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild " + declared, e);
        }
    }
}
