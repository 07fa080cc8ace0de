package io.subetha.cxc.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.util.ServiceUtils;

/**
 * A real 3-node ZooKeeper ensemble in the test JVM (curator-test's {@link TestingCluster}), with
 * the fast-expiry settings of BOOT4.md: tickTime 100 ms, so sessions of 200 ms to 2 s are granted
 * as asked. Servers are killed and restarted for real; {@link #sessions()} counts the client
 * sessions the servers hold, with the {@code cons} four-letter command.
 */
final class Ensemble implements AutoCloseable {

    /** The longest session the servers grant (20 ticks). */
    static final int MAX_SESSION_MILLIS = 2_000;

    private final TestingCluster cluster;
    private final List<InstanceSpec> specs;

    private Ensemble(TestingCluster cluster, List<InstanceSpec> specs) {
        this.cluster = cluster;
        this.specs = specs;
    }

    static Ensemble start(Path scratch) throws Exception {
        // curator-test writes a configuration file per server start into java.io.tmpdir.
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        // A restarted server whose election port is still held by its killed predecessor retries
        // until the port is free, instead of giving up after 3 tries and exiting the test JVM
        // (ZooKeeper calls System.exit(14) then); and no server ever exits the test JVM.
        System.setProperty("zookeeper.electionPortBindRetry", "0");
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
        InstanceSpec.reset();
        List<InstanceSpec> specs = new ArrayList<>();
        int[] ports = freePortsBelowEphemeralRange(9);
        for (int i = 0; i < 3; i++) {
            Path data = Files.createDirectories(scratch.resolve("zk-" + i));
            specs.add(
                    new InstanceSpec(
                            data.toFile(),
                            ports[3 * i],
                            ports[3 * i + 1],
                            ports[3 * i + 2],
                            true,
                            -1,
                            100,
                            -1));
        }
        TestingCluster cluster = new TestingCluster(specs);
        cluster.start();
        return new Ensemble(cluster, specs);
    }

    /**
     * Distinct free ports below the kernel's ephemeral range. curator-test's own picks come from
     * that range, where any outgoing connection (a client retrying, a peer's election attempt) may
     * take a killed server's port before the server restarts: the restarted server then cannot bind
     * it, and the quorum never comes back.
     */
    private static int[] freePortsBelowEphemeralRange(int count) throws IOException {
        int ephemeralLow = 32_768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            // read as a stream: /proc reports a size of 0
            try (InputStream in = Files.newInputStream(range)) {
                String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                ephemeralLow = Integer.parseInt(text.trim().split("\\s+")[0]);
            }
        }
        int low = 10_000;
        if (ephemeralLow - low < 1_000) {
            throw new IllegalStateException(
                    "no port range below the ephemeral one: " + ephemeralLow);
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            while (held.size() < count) {
                int port = low + ThreadLocalRandom.current().nextInt(ephemeralLow - low);
                try {
                    held.add(new ServerSocket(port));
                } catch (IOException taken) {
                    // another process's: pick again
                }
            }
            return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    String connectString() {
        return cluster.getConnectString();
    }

    List<InstanceSpec> servers() {
        return specs;
    }

    void kill(InstanceSpec server) throws Exception {
        if (!cluster.killServer(server)) {
            throw new IllegalStateException("no such server " + server);
        }
    }

    void restart(InstanceSpec server) throws Exception {
        if (!cluster.restartServer(server)) {
            throw new IllegalStateException("no such server " + server);
        }
    }

    private static final Pattern SESSION = Pattern.compile("sid=0x([0-9a-f]+)");

    /** Session ids of every client connection on the servers that answer. */
    Set<Long> sessions() {
        Set<Long> sessions = new HashSet<>();
        for (InstanceSpec spec : specs) {
            String cons = fourLetter(spec.getPort(), "cons");
            Matcher m = SESSION.matcher(cons);
            while (m.find()) {
                sessions.add(Long.parseUnsignedLong(m.group(1), 16));
            }
        }
        return sessions;
    }

    private static String fourLetter(int port, String command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return ""; // a killed server answers nothing
        }
    }

    @Override
    public void close() throws IOException {
        cluster.close();
    }
}
