package io.subetha.cxc.codec;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A record's components in declaration order, each naturally aligned relative to the record's
 * start, the whole padded to its largest alignment (the rules are {@link FixedCodec}'s). All
 * reflection happens here, once: writing goes through method handles of the accessors, exact for
 * primitive components so that they are never boxed; reading calls the canonical constructor.
 */
final class RecordCodec<R extends Record> extends BuiltInCodec<R> {

    /** Stores one primitive component of a record, read from the record without boxing. */
    @FunctionalInterface
    interface PrimitiveStore {
        void store(AtomicBuffer buffer, int offset, Object record) throws Throwable;
    }

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    private static final String SUPPORTED =
            "long, int, short, byte, double, float, boolean (or their boxes), byte[] or String"
                    + " with @FixedSize(n), or a record of those";

    private final Class<R> type;
    private final String name;
    private final Component[] components;

    /** The components checked before anything is stored: all but the primitive ones. */
    private final Component[] checkedComponents;

    /** Padding between components and at the end, zeroed on every write: offset, length pairs. */
    private final int[] padding;

    /** The canonical constructor, spread: {@code (Object[])Object}. */
    private final MethodHandle constructor;

    private static final class Component {
        final String name;
        final int offset;
        final BuiltInCodec<Object> codec;

        /** {@code (Object)Object}; unused for a primitive component, which has a store. */
        final MethodHandle accessor;

        final @Nullable PrimitiveStore primitiveStore;

        Component(
                String name,
                int offset,
                BuiltInCodec<Object> codec,
                MethodHandle accessor,
                @Nullable PrimitiveStore primitiveStore) {
            this.name = name;
            this.offset = offset;
            this.codec = codec;
            this.accessor = accessor;
            this.primitiveStore = primitiveStore;
        }
    }

    private record Layout(
            int[] offsets, int size, int alignment, String description, String canonical) {}

    static <R extends Record> RecordCodec<R> of(Class<R> type) {
        return of(type, new ArrayList<>());
    }

    /**
     * @param enclosing the records being laid out around this one, to refuse recursion
     */
    private static <R extends Record> RecordCodec<R> of(Class<R> type, List<Class<?>> enclosing) {
        if (!type.isRecord()) {
            throw new IllegalArgumentException(
                    type.getName() + " is not a record class; FixedCodec.record takes a record");
        }
        RecordComponent[] declared = type.getRecordComponents();
        if (declared.length == 0) {
            throw new IllegalArgumentException(
                    "record "
                            + type.getName()
                            + " has no components; a FixedCodec stores at least one byte: give"
                            + " it a component");
        }
        List<BuiltInCodec<?>> codecs = new ArrayList<>(declared.length);
        enclosing.add(type);
        try {
            for (RecordComponent component : declared) {
                codecs.add(codecOf(type, component, enclosing));
            }
        } finally {
            enclosing.remove(enclosing.size() - 1);
        }
        return new RecordCodec<>(type, declared, codecs, layout(type, declared, codecs));
    }

    private static BuiltInCodec<?> codecOf(
            Class<?> record, RecordComponent component, List<Class<?>> enclosing) {
        String where = "record " + record.getName() + ", component " + component.getName();
        Class<?> type = component.getType();
        FixedSize size = component.getAnnotation(FixedSize.class);
        if (type == byte[].class || type == String.class) {
            boolean bytes = type == byte[].class;
            if (size == null) {
                throw new IllegalArgumentException(
                        where
                                + " is a "
                                + type.getSimpleName()
                                + " without a size: annotate it @FixedSize(n) with "
                                + (bytes
                                        ? "its exact length in bytes"
                                        : "its largest UTF-8 length in bytes"));
            }
            try {
                return bytes ? new BytesCodec(size.value()) : new StringCodec(size.value());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        where + ": @FixedSize(" + size.value() + ") is invalid: " + e.getMessage(),
                        e);
            }
        }
        if (size != null) {
            throw new IllegalArgumentException(
                    where
                            + " is a "
                            + type.getTypeName()
                            + ": @FixedSize applies only to byte[] and String components; remove"
                            + " it");
        }
        ScalarCodec<?> scalar = ScalarCodec.forType(type);
        if (scalar != null) {
            return scalar;
        }
        if (type.isRecord()) {
            if (enclosing.contains(type)) {
                throw new IllegalArgumentException(
                        where
                                + " makes record "
                                + type.getName()
                                + " contain itself, which no fixed size can hold; break the"
                                + " cycle");
            }
            return of(type.asSubclass(Record.class), enclosing);
        }
        throw new IllegalArgumentException(
                where
                        + " has type "
                        + component.getGenericType().getTypeName()
                        + ", which FixedCodec.record cannot lay out; use "
                        + SUPPORTED);
    }

    private static Layout layout(
            Class<?> type, RecordComponent[] declared, List<BuiltInCodec<?>> codecs) {
        int[] offsets = new int[codecs.size()];
        long end = 0;
        int alignment = 1;
        StringBuilder description = new StringBuilder("record ").append(type.getSimpleName());
        StringBuilder canonical = new StringBuilder("record");
        for (int i = 0; i < offsets.length; i++) {
            BuiltInCodec<?> codec = codecs.get(i);
            end = alignUp(end, codec.alignment());
            offsets[i] = (int) end;
            end += codec.size();
            if (end > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "record " + type.getName() + " is larger than 2 GiB; shrink its sizes");
            }
            alignment = Math.max(alignment, codec.alignment());
            String separator = i == 0 ? "(" : ", ";
            description.append(separator).append(codec.describe());
            description.append(' ').append(declared[i].getName());
            canonical.append(i == 0 ? "(" : ",").append(codec.canonicalLayout());
            canonical.append(' ').append(declared[i].getName());
        }
        long size = alignUp(end, alignment);
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "record " + type.getName() + " is larger than 2 GiB; shrink its sizes");
        }
        return new Layout(
                offsets,
                (int) size,
                alignment,
                description.append(')').toString(),
                canonical.append(')').toString());
    }

    private static long alignUp(long offset, int alignment) {
        return (offset + alignment - 1) & -alignment;
    }

    @SuppressWarnings("unchecked")
    private RecordCodec(
            Class<R> type,
            RecordComponent[] declared,
            List<BuiltInCodec<?>> codecs,
            Layout layout) {
        super(layout.size(), layout.alignment(), layout.description(), layout.canonical());
        this.type = type;
        this.name = type.getSimpleName();
        this.components = new Component[declared.length];
        List<Component> checked = new ArrayList<>();
        Class<?>[] parameterTypes = new Class<?>[declared.length];
        for (int i = 0; i < declared.length; i++) {
            RecordComponent component = declared[i];
            BuiltInCodec<Object> codec = (BuiltInCodec<Object>) codecs.get(i);
            MethodHandle accessor = accessor(type, component.getAccessor());
            Class<?> componentType = component.getType();
            PrimitiveStore primitiveStore =
                    componentType.isPrimitive()
                            ? ((ScalarCodec<?>) codec).primitiveStore(accessor)
                            : null;
            components[i] =
                    new Component(
                            component.getName(),
                            layout.offsets()[i],
                            codec,
                            accessor.asType(MethodType.methodType(Object.class, Object.class)),
                            primitiveStore);
            if (primitiveStore == null) {
                checked.add(components[i]);
            }
            parameterTypes[i] = componentType;
        }
        this.checkedComponents = checked.toArray(new Component[0]);
        this.padding = padding(components, layout.size());
        this.constructor = constructor(type, parameterTypes);
    }

    private static int[] padding(Component[] components, int size) {
        List<Integer> pairs = new ArrayList<>();
        int cursor = 0;
        for (Component component : components) {
            if (component.offset > cursor) {
                pairs.add(cursor);
                pairs.add(component.offset - cursor);
            }
            cursor = component.offset + component.codec.size();
        }
        if (size > cursor) {
            pairs.add(cursor);
            pairs.add(size - cursor);
        }
        return pairs.stream().mapToInt(Integer::intValue).toArray();
    }

    private static MethodHandle accessor(Class<?> type, Method accessor) {
        try {
            accessor.setAccessible(true);
            return LOOKUP.unreflect(accessor);
        } catch (IllegalAccessException | RuntimeException e) {
            throw inaccessible(type, e);
        }
    }

    private static MethodHandle constructor(Class<?> type, Class<?>[] parameterTypes) {
        try {
            Constructor<?> canonical = type.getDeclaredConstructor(parameterTypes);
            canonical.setAccessible(true);
            return LOOKUP.unreflectConstructor(canonical)
                    .asSpreader(Object[].class, parameterTypes.length)
                    .asType(MethodType.methodType(Object.class, Object[].class));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(
                    "record " + type.getName() + " has no canonical constructor", e);
        } catch (IllegalAccessException | RuntimeException e) {
            throw inaccessible(type, e);
        }
    }

    private static IllegalArgumentException inaccessible(Class<?> type, Exception e) {
        return new IllegalArgumentException(
                "record "
                        + type.getName()
                        + " is not accessible to io.subetha.cxc.codec: make it public in an"
                        + " exported package, or open its package to this library ("
                        + e
                        + ")",
                e);
    }

    @Override
    void checkValue(R value) {
        for (Component component : checkedComponents) {
            Object componentValue = get(component, value);
            try {
                component.codec.check(componentValue);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        name + "." + component.name + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    void encode(AtomicBuffer buffer, int offset, R value) {
        try {
            for (Component component : components) {
                int at = offset + component.offset;
                PrimitiveStore primitiveStore = component.primitiveStore;
                if (primitiveStore != null) {
                    primitiveStore.store(buffer, at, value);
                } else {
                    component.codec.encode(buffer, at, get(component, value));
                }
            }
        } catch (Throwable t) {
            throw unchecked(t);
        }
        for (int i = 0; i < padding.length; i += 2) {
            zero(buffer, offset + padding[i], padding[i + 1]);
        }
    }

    @Override
    R decode(AtomicBuffer buffer, int offset) {
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            Component component = components[i];
            try {
                values[i] = component.codec.decode(buffer, offset + component.offset);
            } catch (CxcFormatException e) {
                throw new CxcFormatException(name + "." + component.name + ": " + e.getMessage());
            }
        }
        try {
            return type.cast((Object) constructor.invokeExact(values));
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    private static Object get(Component component, Object record) {
        try {
            return (Object) component.accessor.invokeExact(record);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /**
     * Accessors and constructors of records throw only what their own code throws; pass that on as
     * it is.
     */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new IllegalStateException("a record accessor or constructor threw " + t, t);
    }
}
