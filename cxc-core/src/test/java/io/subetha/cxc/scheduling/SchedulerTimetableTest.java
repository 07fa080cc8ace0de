package io.subetha.cxc.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's timetable in one process: a recurring job fires once per due time from the
 * workers' polls, keeps to its grid when on time and coalesces the fires it missed; a fixed delay
 * counts from the fire; delayed jobs wait in the timetable; every copy may schedule the same name;
 * the timetable survives a restart; bad input, and a file of the layout before the timetable, are
 * refused with what to do.
 */
class SchedulerTimetableTest {

    static final long PID = ProcessHandle.current().pid();
    static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path dir;

    BackgroundScheduler<Long, Long> scheduler() {
        return BackgroundScheduler.openOrCreate(
                dir.resolve("jobs.cxc"),
                new BackgroundScheduler.Settings<>(16, FixedCodec.INT64, FixedCodec.INT64));
    }

    static TimetableEntry entry(BackgroundScheduler<?, ?> s, String name) {
        return s.timetable().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aDueRecurringJobIsSubmittedOnceByTheNextPollAndKeepsToItsGrid() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            Instant due = Instant.ofEpochMilli(System.currentTimeMillis() - 10);
            assertThat(s.schedule("report", Recurrence.fixedRate(HOUR), 42L, JobOptions.at(due)))
                    .isTrue();
            Job<Long> job = s.receive(PID).orElseThrow();
            assertThat(job.payload()).isEqualTo(42L);
            assertThat(s.receive(PID)).isEmpty(); // due again only in an hour
            TimetableEntry report = entry(s, "report");
            assertThat(report.nextDue()).isEqualTo(due.plus(HOUR)); // on time: on its grid
            assertThat(report.fires()).isEqualTo(1);
            assertThat(report.recurrence()).isEqualTo("fixed-rate:PT1H");
            assertThat(s.describe())
                    .containsEntry("fires", 1L)
                    .containsEntry(
                            "timetable",
                            java.util.List.of(
                                    "report fixed-rate:PT1H, next due at "
                                            + due.plus(HOUR)
                                            + ", fired 1 times"));
            assertThat(s.complete(job, 43L)).isTrue();
            s.schedule("report", Recurrence.fixedRate(HOUR), 43L); // a copy's start: still 1
            assertThat(entry(s, "report").fires()).isEqualTo(1);
            s.unschedule("report");
            s.schedule("audit", Recurrence.fixedRate(HOUR), 1L); // its entry, anew
            assertThat(entry(s, "audit").fires()).isZero();
        }
    }

    @Test
    void firesMissedWhileNoProcessRanAreCoalescedIntoOneAndTheRecurrenceResumesFromIt() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            Instant fiveHoursAgo = Instant.now().minus(Duration.ofHours(5));
            s.schedule("hourly", Recurrence.fixedRate(HOUR), 1L, JobOptions.at(fiveHoursAgo));
            long before = System.currentTimeMillis();
            assertThat(s.fireDue()).isEqualTo(1);
            long after = System.currentTimeMillis();
            assertThat(s.fireDue()).isZero();
            assertThat(s.counts().queued()).isEqualTo(1);
            Instant next = entry(s, "hourly").nextDue();
            assertThat(next.toEpochMilli())
                    .isBetween(before + HOUR.toMillis(), after + HOUR.toMillis());
        }
    }

    @Test
    void aFixedDelayCountsFromTheFire() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            Instant due = Instant.now().minusSeconds(30);
            s.schedule("cleanup", Recurrence.fixedDelay(HOUR), 1L, JobOptions.at(due));
            long before = System.currentTimeMillis();
            assertThat(s.fireDue()).isEqualTo(1);
            long after = System.currentTimeMillis();
            assertThat(entry(s, "cleanup").nextDue().toEpochMilli())
                    .isBetween(before + HOUR.toMillis(), after + HOUR.toMillis());
        }
    }

    @Test
    void aDelayedJobWaitsInTheTimetableUntilDueAndIsSubmittedOnce() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            assertThat(s.submit(5L, JobOptions.after(HOUR))).isEqualTo(BackgroundScheduler.DELAYED);
            assertThat(s.receive(PID)).isEmpty();
            assertThat(s.submit(6L, JobOptions.after(Duration.ofMillis(50))))
                    .isEqualTo(BackgroundScheduler.DELAYED);
            assertThat(s.timetable()).extracting(TimetableEntry::recurrence).containsOnly("once");
            Job<Long> job = await().until(() -> s.receive(PID), Optional::isPresent).orElseThrow();
            assertThat(job.payload()).isEqualTo(6L);
            assertThat(s.timetable()).hasSize(1); // the fired one-shot's entry is free again
            String later = s.timetable().get(0).name();
            assertThat(later).startsWith("@");
            assertThat(s.unschedule(later)).isTrue();
            assertThat(s.timetable()).isEmpty();
            long now = s.submit(7L, JobOptions.after(Duration.ZERO)); // not later: queued at once
            assertThat(now).isNotNegative();
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(7L);
        }
    }

    @Test
    void schedulingANameAgainReplacesItsEntryAndKeepsItsDueTimeIfItsRecurrenceIsTheSame() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            s.schedule("digest", Recurrence.fixedRate(HOUR), 1L);
            Instant due = entry(s, "digest").nextDue();
            assertThat(s.schedule("digest", Recurrence.fixedRate(HOUR), 2L)).isFalse();
            assertThat(s.timetable()).hasSize(1);
            assertThat(entry(s, "digest").nextDue()).isEqualTo(due);
            s.schedule("digest", Recurrence.fixedRate(Duration.ofMinutes(5)), 2L);
            assertThat(entry(s, "digest").recurrence()).isEqualTo("fixed-rate:PT5M");
            assertThat(s.unschedule("digest")).isTrue();
            assertThat(s.unschedule("digest")).isFalse();
        }
    }

    @Test
    void theTimetableSurvivesEveryHandleClosingAndFiresFromTheNext() {
        Instant due = Instant.now().minusSeconds(1);
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            s.schedule("nightly", Recurrence.fixedRate(HOUR), 9L, JobOptions.at(due));
        }
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            assertThat(s.timetable()).extracting(TimetableEntry::name).containsExactly("nightly");
            assertThat(s.receive(PID).orElseThrow().payload()).isEqualTo(9L);
        }
    }

    @Test
    void badInputIsRefusedSayingWhatIsWrong() {
        try (BackgroundScheduler<Long, Long> s = scheduler()) {
            assertThatThrownBy(() -> Recurrence.fixedRate(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fixed-rate period must be 1 ms");
            assertThatThrownBy(() -> Recurrence.parse("cron:0 0 * * * *"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unknown kind \"cron\"")
                    .hasMessageContaining("Spring Boot starter");
            assertThatThrownBy(() -> Recurrence.parse("fixed-rate:ten seconds"))
                    .hasMessageContaining("not an ISO-8601 duration");
            assertThatThrownBy(() -> s.schedule("x".repeat(65), Recurrence.fixedRate(HOUR), 1L))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1..64 UTF-8 bytes");
            assertThatThrownBy(() -> s.schedule("@3.1", Recurrence.fixedRate(HOUR), 1L))
                    .hasMessageContaining("not starting with @");
            Recurrence unreadable =
                    new Recurrence() {
                        @Override
                        public Instant next(Instant after) {
                            return after.plusSeconds(1);
                        }

                        @Override
                        public String spec() {
                            return "lunar:full-moon";
                        }
                    };
            assertThatThrownBy(() -> s.schedule("moon", unreadable, 1L))
                    .hasMessageContaining("unknown kind \"lunar\"");
            assertThatThrownBy(() -> JobOptions.after(Duration.ofSeconds(-1)))
                    .hasMessageContaining("delay must be zero or more");
            for (int i = 0; i < BackgroundSchedulerDescriptor.DEFAULT_TIMETABLE_ENTRIES; i++) {
                s.schedule("job-" + i, Recurrence.fixedRate(HOUR), (long) i);
            }
            assertThatThrownBy(() -> s.schedule("one-more", Recurrence.fixedRate(HOUR), 1L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("timetable is full: it holds 64");
            assertThatThrownBy(() -> s.submit(1L, JobOptions.after(HOUR)))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("timetable is full");
            assertThat(s.trySubmit(1L, JobOptions.after(HOUR))).isEqualTo(-1);
            assertThat(s.schedule("job-3", Recurrence.fixedRate(HOUR), 3L)).isFalse(); // not new
            assertThat(s.timetable()).hasSize(64);
        }
    }

    @Test
    void theTimetableHoldsAsManyEntriesAsItsSettingAndAFullOneSaysWhatToDo() {
        Path path = dir.resolve("small.cxc");
        BackgroundScheduler.Settings<Long, Long> two =
                new BackgroundScheduler.Settings<>(3, FixedCodec.INT64, FixedCodec.INT64)
                        .withTimetableEntries(2);
        try (BackgroundScheduler<Long, Long> s = BackgroundScheduler.openOrCreate(path, two)) {
            s.schedule("a", Recurrence.fixedRate(HOUR), 1L);
            s.submit(2L, JobOptions.after(HOUR));
            assertThatThrownBy(() -> s.schedule("c", Recurrence.fixedRate(HOUR), 3L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("timetable is full: it holds 2 recurring and delayed")
                    .hasMessageContaining("timetableEntries")
                    .hasMessageContaining("more timetable entries in a new file");
            assertThat(s.describe()).containsEntry("timetableCapacity", 2);
            for (long job = 0; job < 3; job++) {
                s.submit(job); // the entries take none of the job slots
            }
            assertThat(s.capacity()).isEqualTo(3);
            assertThat(s.trySubmit(4L)).isEqualTo(-1);
        }
        try (BackgroundScheduler<Long, Long> s = BackgroundScheduler.open(path, two)) {
            assertThat(s.timetable()).hasSize(2); // the file records its size
        }
        for (int refused : new int[] {0, BackgroundSchedulerDescriptor.MAX_TIMETABLE_ENTRIES + 1}) {
            assertThatThrownBy(() -> two.withTimetableEntries(refused))
                    .isInstanceOf(CxcSettingsException.class)
                    .hasMessageContaining("timetableEntries")
                    .hasMessageContaining("" + refused);
        }
    }

    @Test
    void aFileOfTheLayoutBeforeTheTimetableIsRefusedSayingSo() throws Exception {
        Path path = dir.resolve("jobs.cxc");
        scheduler().close();
        try (FileChannel channel =
                FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header =
                    ByteBuffer.allocate(HeaderDescriptor.HEADER_LENGTH)
                            .order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            header.putInt(HeaderDescriptor.LAYOUT_VERSION_OFFSET, 2);
            header.putInt(HeaderDescriptor.CHECKSUM_OFFSET, FileHeader.checksumOf(header));
            channel.write(header.position(0), 0);
        }
        assertThatThrownBy(this::scheduler)
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("layout version 2, but this CXC reads version 5")
                .hasMessageContaining("older CXC release");
    }
}
