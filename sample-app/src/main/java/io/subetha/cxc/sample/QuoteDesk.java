package io.subetha.cxc.sample;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.dispatch.PassOwnerDiedException;
import io.subetha.cxc.dispatch.PassRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The pass handler {@code quote} (pass 1 of the registry {@code calls}, declared by {@code
 * cxc.pass-registries.calls.*}): every copy registers it, one owns the id and answers every copy's
 * calls, the others stand by and one takes over when the owner dies. {@code GET /quote?for=x} calls
 * it from whichever copy serves the request and answers with what the owner said, its PID included.
 */
@Configuration(proxyBeanMethods = false)
public class QuoteDesk {

    static final long QUOTE = 1;

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** Answers with the request and the PID of the copy that ran it. */
    @Bean
    @PassId(QUOTE)
    PassHandler quote() {
        long pid = ProcessHandle.current().pid();
        return args ->
                ("quote for " + new String(args, StandardCharsets.UTF_8) + " by pid " + pid)
                        .getBytes(StandardCharsets.UTF_8);
    }

    @RestController
    static class QuoteEndpoint {

        private final PassRegistry calls;

        QuoteEndpoint(@Qualifier("calls") PassRegistry calls) {
            this.calls = calls;
        }

        @GetMapping("/quote")
        String quote(@RequestParam("for") String item) {
            byte[] request = item.getBytes(StandardCharsets.UTF_8);
            byte[] answer;
            try {
                answer = calls.execute(QUOTE, request, TIMEOUT);
            } catch (PassOwnerDiedException e) {
                // The owner died under the call. Retry only if its handler cannot have run: a
                // handler with effects must not run twice (this one has none, but show the rule).
                if (e.mayHaveRun()) {
                    throw e;
                }
                answer = calls.execute(QUOTE, request, TIMEOUT);
            }
            return new String(answer, StandardCharsets.UTF_8) + "\n";
        }
    }
}
