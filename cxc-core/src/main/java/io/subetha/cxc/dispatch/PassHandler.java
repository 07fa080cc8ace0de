package io.subetha.cxc.dispatch;

/**
 * A handler a process registers under a pass id ({@link PassRegistry#register}): it runs in that
 * process, on one of its registry's dispatcher threads, for a request any process sent. Whatever it
 * throws is returned to the caller as a {@link PassFailedException} (class and message).
 */
@FunctionalInterface
public interface PassHandler {

    /**
     * @param args the caller's argument bytes (a fresh array the handler may keep)
     * @return the result bytes, at most the registry's {@code maxPayloadBytes}
     */
    byte[] handle(byte[] args) throws Exception;
}
