package io.subetha.cxc.fanout;

import io.subetha.cxc.testing.ChildServer;
import java.nio.file.Path;

/** Advances the task at {@code args[0]} by one, {@code args[1]} times, then says "advanced". */
public final class ProgressChild {

    private ProgressChild() {}

    public static void main(String[] args) throws Exception {
        try (ProgressTask task = ProgressTask.open(Path.of(args[0]))) {
            long n = Long.parseLong(args[1]);
            for (long i = 0; i < n; i++) {
                task.advance(1);
            }
        }
        ChildServer.say("advanced");
        new ChildServer().serve(); // until the parent closes stdin or kills us
    }
}
