package io.subetha.cxc.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server from the machine's own binaries (Debian's {@code postgresql}
 * package: {@code /usr/lib/postgresql/<version>/bin}; {@code apt-get install -y postgresql} if
 * absent): {@code initdb} into a temporary directory, {@code pg_ctl start} on a free port on
 * 127.0.0.1, {@code pg_ctl stop -m immediate} and the directory deleted on {@link #close}. Its
 * settings are initdb's defaults (fsync on). PostgreSQL refuses to run as root, so as root the
 * commands run as the {@code postgres} user through {@code runuser}.
 */
final class PostgresServer implements AutoCloseable {

    static final String USER = "bench";

    private final Path data;
    private final int port;
    private final List<String> asUser;

    private PostgresServer(Path data, int port, List<String> asUser) {
        this.data = data;
        this.port = port;
        this.asUser = asUser;
    }

    static PostgresServer start() throws IOException, InterruptedException {
        Path bin = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> asUser = root ? List.of("runuser", "-u", "postgres", "--") : List.of();
        Path data = Files.createTempDirectory("cxc-pg-");
        if (root) {
            run(List.of("chown", "postgres", data.toString()));
        }
        PostgresServer server = new PostgresServer(data, JobRunnerShootout.freePort(), asUser);
        try {
            server.as(
                    bin.resolve("initdb"),
                    "-D",
                    data.resolve("db").toString(),
                    "-U",
                    USER,
                    "-A",
                    "trust",
                    "--no-sync",
                    "-E",
                    "UTF8");
            server.as(
                    bin.resolve("pg_ctl"),
                    "-D",
                    data.resolve("db").toString(),
                    "-w",
                    "-l",
                    data.resolve("log").toString(),
                    "-o",
                    "-p " + server.port + " -k " + data + " -c listen_addresses=127.0.0.1",
                    "start");
            return server;
        } catch (IOException | RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    private static Path binaries() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                var found =
                        versions.map(v -> v.resolve("bin"))
                                .filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                                .max(Comparator.naturalOrder());
                if (found.isPresent()) {
                    return found.get();
                }
            }
        }
        throw new IllegalStateException(
                "no PostgreSQL server under /usr/lib/postgresql/*/bin:"
                        + " install Debian's (apt-get install -y postgresql) and run again");
    }

    /** A new empty database; its JDBC URL. */
    String createDatabase(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres"), USER, "");
                Statement st = c.createStatement()) {
            st.execute("create database " + name);
        }
        return url(name);
    }

    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A Hikari pool on {@code url}, as both anchors' docs run their SQL stores. */
    static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    private void as(Path command, String... args) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(asUser);
        line.add(command.toString());
        line.addAll(List.of(args));
        run(line);
    }

    private static void run(List<String> line) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", line) + " failed: " + out);
        }
    }

    @Override
    public void close() {
        try {
            if (Files.exists(data.resolve("db/postmaster.pid"))) {
                as(
                        binaries().resolve("pg_ctl"),
                        "-D",
                        data.resolve("db").toString(),
                        "-w",
                        "-m",
                        "immediate",
                        "stop");
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("PostgreSQL did not stop: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try (Stream<Path> files = Files.walk(data)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
