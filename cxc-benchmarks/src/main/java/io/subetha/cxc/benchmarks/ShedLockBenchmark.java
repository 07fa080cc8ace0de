package io.subetha.cxc.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * What users pick for "run once per schedule tick" across processes: ShedLock's JDBC provider. Per
 * op, one lock and one unlock, as ShedLock does around each scheduled run. The database is the most
 * favourable one possible, an in-memory H2 reached through one reused connection (no network, no
 * pool, no disk), so this figure is ShedLock's floor. Its deep stack (Spring transactions, JDBC,
 * H2's SQL engine) takes several seconds to reach steady state, hence the longer warm-up; a real
 * schedule locks once per tick and never runs this code hot, so real runs cost more.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class ShedLockBenchmark {

    private static final String LOCK_NAME = "scheduled-task";

    private SingleConnectionDataSource dataSource;
    private JdbcTemplateLockProvider lockProvider;

    @Setup(Level.Trial)
    public void createLockTable() {
        dataSource =
                new SingleConnectionDataSource(
                        "jdbc:h2:mem:shedlock;DB_CLOSE_DELAY=-1", "sa", "", true);
        new JdbcTemplate(dataSource)
                .execute(
                        "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3)"
                                + " NOT NULL, locked_at TIMESTAMP(3) NOT NULL, locked_by"
                                + " VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        lockProvider = new JdbcTemplateLockProvider(dataSource);
    }

    @TearDown(Level.Trial)
    public void dropDatabase() {
        new JdbcTemplate(dataSource).execute("SHUTDOWN");
        dataSource.destroy();
    }

    @Benchmark
    public SimpleLock lockAndUnlock() {
        Optional<SimpleLock> lock =
                lockProvider.lock(
                        new LockConfiguration(
                                Instant.now(), LOCK_NAME, Duration.ofMinutes(1), Duration.ZERO));
        if (lock.isEmpty()) {
            throw new IllegalStateException("nobody else holds the lock, yet ShedLock refused it");
        }
        lock.get().unlock();
        return lock.get();
    }
}
