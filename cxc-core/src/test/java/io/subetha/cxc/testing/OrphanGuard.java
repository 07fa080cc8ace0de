package io.subetha.cxc.testing;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Entry point of every child JVM a test starts: halts the child the moment its parent (the test
 * JVM) exits, however it exits, then runs the real main class. An orphaned JVM spinning on a 2-core
 * machine would skew every later test and measurement.
 *
 * <p>Usage: {@code java -cp ... io.subetha.cxc.testing.OrphanGuard <parent-pid> <main-class>
 * <args...>}
 */
public final class OrphanGuard {

    private OrphanGuard() {}

    public static void main(String[] args) throws Throwable {
        long parentPid = Long.parseLong(args[0]);
        ProcessHandle.of(parentPid)
                .ifPresentOrElse(
                        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(97)),
                        () -> Runtime.getRuntime().halt(97));
        Method main = Class.forName(args[1]).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
