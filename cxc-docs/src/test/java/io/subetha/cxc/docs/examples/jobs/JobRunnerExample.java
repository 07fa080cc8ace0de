package io.subetha.cxc.docs.examples.jobs;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.scheduling.JobEntry;
import io.subetha.cxc.scheduling.JobOptions;
import io.subetha.cxc.scheduling.RetryPolicy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

/** What the handler and the service below store and raise; JobRunnerExampleTest reads it. */
final class Thumbnailing {
    static final Map<Long, Long> STORED = new ConcurrentHashMap<>();

    private Thumbnailing() {}

    static long render(long imageId) {
        if (imageId == 13 && STORED.get(-1L) == null) {
            throw new IllegalStateException("unlucky");
        }
        return imageId * 10;
    }
}

// docs:begin job-handler
@Component
class ThumbnailRenderer implements JobHandler<Long, Long> { // not "Thumbnails": the bean "thumbnails" is the scheduler
    public String scheduler() { // the declared name
        return "thumbnails";
    }

    public FixedCodec<Long> jobCodec() {
        return FixedCodec.INT64;
    }

    public FixedCodec<Long> resultCodec() {
        return FixedCodec.INT64;
    }

    public Long handle(Job<Long> job) { // if it throws: retried, then FAILED
        return render(job.payload());
    }

    public void onFailed(Job<Long> job, Exception e) { // optional: attempts spent
        alert(job.id(), e);
    }
    private long render(long imageId) { return Thumbnailing.render(imageId); } // docs:hide
    private void alert(long jobId, Exception e) {} // docs:hide
}

@Service // anywhere (this or another instance): submit, collect, re-run what failed
class Gallery {
    private final BackgroundScheduler<Long, Long> thumbnails;

    Gallery(@Qualifier("thumbnails") BackgroundScheduler<Long, Long> thumbnails) {
        this.thumbnails = thumbnails;
    }

    long add(long imageId) {
        return thumbnails.submit(imageId);
    }

    long addUrgent(long imageId) { // this job's own policy, not the scheduler's
        RetryPolicy policy = RetryPolicy.fixed(5, Duration.ofSeconds(10));
        return thumbnails.submit(imageId, JobOptions.DEFAULT.withRetry(policy));
    }

    void collect() {
        thumbnails.collector().take(100).forEach(r -> store(r.jobId(), r.result()));
    }

    void rerunFailed() {
        thumbnails.jobs().stream()
                .filter(job -> job.state() == JobEntry.State.FAILED)
                .forEach(job -> thumbnails.rerun(job.id()));
    }
    private void store(long jobId, long thumbnail) { Thumbnailing.STORED.put(jobId, thumbnail); } // docs:hide
    long failed() { return thumbnails.counts().failed(); } // docs:hide
}
// docs:end job-handler
