package io.subetha.cxc.benchmarks;

import java.util.List;

/**
 * The JVM options Chronicle Queue 5.x needs on Java 17 (it reaches into JDK internals for its
 * off-heap access and its cleaner), as its own documentation lists them, plus its analytics
 * switched off. The JMH benchmarks that run it repeat them in {@code @Fork(jvmArgsAppend)}, which
 * takes only constants; the latency harness passes {@link #OPTIONS} to its child JVMs.
 */
final class ChronicleJvmArgs {

    static final List<String> OPTIONS =
            List.of(
                    "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
                    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
                    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
                    "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
                    "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "-Dchronicle.analytics.disable=true",
                    "-Dchronicle.announcer.disable=true");

    private ChronicleJvmArgs() {}
}
