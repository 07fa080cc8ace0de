package io.subetha.cxc.sample;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies of the sample application, each a JVM of its own on its own port: the multi-JVM tests'.
 */
final class SampleCopies {

    private SampleCopies() {}

    /**
     * Starts a copy on {@code port} sharing {@code directory}, with {@code arguments} after the
     * common ones; {@code children} kills it at the latest.
     */
    static ChildJvm start(
            ChildJvmGroup children, String name, int port, Path directory, String... arguments) {
        List<String> all = new ArrayList<>();
        all.add("--server.port=" + port);
        all.add("--cxc.directory=" + directory);
        all.add("--spring.main.banner-mode=off");
        all.addAll(List.of(arguments));
        return children.add(
                ChildJvm.start(
                        name,
                        List.of("-Xss512k", "-XX:ReservedCodeCacheSize=64m"),
                        System.getProperty("java.class.path"),
                        SampleApplication.class.getName(),
                        all,
                        null));
    }

    /** A port nobody listens on now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
