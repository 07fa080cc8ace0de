package io.subetha.cxc.sample;

import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies of the sample application, each a JVM of its own on its own port: the multi-JVM tests'.
 */
final class SampleCopies {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

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

    /**
     * Starts a copy named {@code sample-<port>} as {@link #start} does, and waits until it answers
     * {@code /actuator/health}.
     */
    static ChildJvm startAnswering(
            ChildJvmGroup children, int port, Path directory, String... arguments) {
        return awaitAnswering(start(children, "sample-" + port, port, directory, arguments), port);
    }

    /** Waits until {@code child}, started on {@code port}, answers {@code /actuator/health}. */
    static ChildJvm awaitAnswering(ChildJvm child, int port) {
        await("/actuator/health of " + child)
                .atMost(Duration.ofSeconds(100))
                .pollInterval(Duration.ofMillis(250))
                .failFast(() -> !child.isAlive())
                .until(() -> get(port, "/actuator/health") != null);
        return child;
    }

    /** A port nobody listens on now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GET a path of the copy on {@code port}, or null if it does not answer (yet). */
    static String get(int port, String path) throws InterruptedException {
        try {
            return send(HttpRequest.newBuilder(uri(port, path)));
        } catch (IOException notUp) {
            return null;
        }
    }

    /** POST to a path of the copy on {@code port}, with no body. */
    static String post(int port, String path) throws IOException, InterruptedException {
        return send(
                HttpRequest.newBuilder(uri(port, path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** The answer's body if it is a 200, else null. */
    private static String send(HttpRequest.Builder request)
            throws IOException, InterruptedException {
        HttpResponse<String> response =
                HTTP.send(
                        request.timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? response.body() : null;
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
