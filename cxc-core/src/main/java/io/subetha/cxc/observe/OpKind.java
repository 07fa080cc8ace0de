package io.subetha.cxc.observe;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Locale;

/**
 * One kind of operation a primitive counts: implemented by each primitive's {@code Op} enum, a
 * plain list of names. A constant's number is its primitive's {@code OP_<NAME>} constant (the
 * numbering callers and the hot paths use), found by name once, when the primitive's type is made;
 * its exported name is the constant's, lower-cased ({@code TRY_CLAIM} is {@code try_claim}). A
 * primitive exports exactly the ops its enum declares; numbers may leave gaps where a family's
 * numbering skips an op this primitive does not have.
 */
public interface OpKind {

    /** The op's number, 1..{@link OpCounters#MAX_OPS}: the enclosing class's {@code OP_<NAME>}. */
    default int code() {
        Enum<?> op = (Enum<?>) this;
        Class<?> primitive = op.getDeclaringClass().getEnclosingClass();
        String constant = "OP_" + op.name();
        try {
            Field field = primitive == null ? null : primitive.getField(constant);
            if (field == null
                    || field.getType() != int.class
                    || !Modifier.isStatic(field.getModifiers())) {
                throw new NoSuchFieldException(constant);
            }
            return field.getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "op "
                            + op.name()
                            + " of "
                            + op.getDeclaringClass().getName()
                            + " has no public static int "
                            + constant
                            + " in its enclosing class; declare it, or override code()",
                    e);
        }
    }

    /** The name exported in metrics and the actuator. */
    default String opName() {
        return ((Enum<?>) this).name().toLowerCase(Locale.ROOT);
    }
}
