package io.subetha.cxc.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The serving side of a {@link ChildJvm}: reads one command per stdin line, runs the command
 * registered for its first word, and writes the command's reply as one stdout line. A command that
 * throws is answered {@code error <exception>}; an unknown verb likewise. Serving ends when stdin
 * closes or on {@code quit}, and the JVM halts at once: the parent is done with it, and nothing the
 * child still runs (daemon loops, parked threads) should hold it up.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     new ChildServer()
 *             .on("open", w -> { ...; return "ok"; })
 *             .on("push", w -> "pushed " + chain.push(...))
 *             .serve();
 * }
 * }</pre>
 *
 * Lines a child prints on its own (events from its worker threads) go through {@link #say}, so they
 * never interleave with a reply inside one line.
 */
public final class ChildServer {

    /** One verb's work: receives the command's words (the verb first), returns the reply line. */
    @FunctionalInterface
    public interface Command {
        /**
         * @return the reply, or null when the command answers by itself (through {@link #say})
         */
        String run(String[] words) throws Exception;
    }

    private final Map<String, Command> commands = new HashMap<>();

    /** Registers the command run for lines whose first word is {@code verb}. */
    public ChildServer on(String verb, Command command) {
        if (commands.putIfAbsent(verb, command) != null) {
            throw new IllegalArgumentException("verb " + verb + " registered twice");
        }
        return this;
    }

    /** Serves stdin until it closes or says {@code quit}, then halts the JVM with status 0. */
    public void serve() {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = in.readLine()) != null && !line.trim().equals("quit")) {
                String reply = answer(line.trim().split(" "));
                if (reply != null) {
                    say(reply);
                }
            }
        } catch (IOException e) {
            // the parent is gone: OrphanGuard halts us in any case
        }
        Runtime.getRuntime().halt(0);
    }

    private String answer(String[] words) {
        Command command = commands.get(words[0]);
        if (command == null) {
            return "error unknown command " + String.join(" ", words);
        }
        try {
            return command.run(words);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "error " + e;
        } catch (Exception e) {
            return "error " + e;
        }
    }

    /** Writes one whole line to stdout, flushed; safe from any thread. */
    public static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    /**
     * Runs {@code body} on a daemon thread (it dies with the child), saying {@code error
     * <exception>} if it fails.
     */
    public static Thread daemon(String name, Runnable body) {
        Thread thread =
                new Thread(
                        () -> {
                            try {
                                body.run();
                            } catch (RuntimeException e) {
                                say("error " + e);
                            }
                        },
                        name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
