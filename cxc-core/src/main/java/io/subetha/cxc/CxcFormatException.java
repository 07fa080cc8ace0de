package io.subetha.cxc;

/**
 * A file is not a valid cxc file of the expected kind: empty, truncated, foreign, corrupt, of
 * another primitive, of another layout version, or with a header that lies about its size. The file
 * is never written to once this is thrown for it.
 */
public class CxcFormatException extends CxcException {

    public CxcFormatException(String message) {
        super(message);
    }
}
