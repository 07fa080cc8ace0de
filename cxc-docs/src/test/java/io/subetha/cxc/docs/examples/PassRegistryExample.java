package io.subetha.cxc.docs.examples;

import io.subetha.cxc.boot.annotation.PassId;
// docs:begin pass-registry-core
import io.subetha.cxc.dispatch.*;
// docs:end pass-registry-core
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A handler in the process that owns it, called from any process. */
class PassRegistryExample {

    interface Printer {
        byte[] print(byte[] document);
    }

    private Printer printer;

    void passes(byte[] document) throws Exception {
        // docs:begin pass-registry-core

        Path file = Path.of("/dev/shm/myapp/calls.passes");

        // Process A owns pass 7: its dispatcher thread runs the handler for every caller.
        PassRegistry.Settings settings = new PassRegistry.Settings(64, 8, 1024); // maxPasses, mailboxSlots, maxPayloadBytes
        PassRegistry owner = PassRegistry.openOrCreate(file, settings);
        owner.register(7, args -> printer.print(args));   // PassOwnedException if a live process has 7
        // ... owner.close() unregisters 7 and stops the dispatcher threads

        // Process B (or C, or A itself) calls it.
        try (PassRegistry caller = PassRegistry.openOrCreate(file, settings)) {
            byte[] receipt = caller.execute(7, document, Duration.ofSeconds(2));
            CompletableFuture<byte[]> later = caller.executeAsync(7, document, Duration.ofSeconds(2));
        }
        // docs:end pass-registry-core
    }

    @Configuration
    static class Handlers {
        // docs:begin pass-id
        @Bean
        @PassId(7)                              // registry = "calls" where several are declared
        PassHandler printJob(Printer printer) {
            return args -> printer.print(args); // registered on startup, unregistered on shutdown
        }
        // docs:end pass-id
    }
}
