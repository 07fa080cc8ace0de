package io.subetha.cxc.cli;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.catalog.PrimitiveCatalog;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/** Real files made by the primitives, and the bad-input catalogue's ways of damaging them. */
final class Fixtures {

    static final long ME = ProcessHandle.current().pid();

    private Fixtures() {}

    /**
     * One file of every kind in {@code directory}, created with the kind's defaults (and whatever
     * they refer to), named after the kind; the handles are closed.
     */
    static List<Path> oneOfEveryKind(Path directory) {
        List<Path> files = new ArrayList<>();
        for (PrimitiveType<?, ?> type : PrimitiveCatalog.TYPES) {
            type.prepareDefaults(directory);
            Path file = directory.resolve(type.kind().name() + ".cxc");
            try (MappedPrimitive ignored = create(type, file)) {
                files.add(file);
            }
        }
        return files;
    }

    private static <S> MappedPrimitive create(PrimitiveType<?, S> type, Path file) {
        return type.create(file, type.defaults(), CxcFileOptions.defaults());
    }

    /** The message {@code open} gives for {@code file} as its header's kind, read-only. */
    static String openMessage(Path file, PrimitiveKinds.Kind kind) {
        try (PrimitiveView p =
                PrimitiveCatalog.typeOf(kind)
                        .observe(file, CxcFileOptions.defaults().asReadOnly())) {
            throw new AssertionError(file + " opened as " + p);
        } catch (CxcException e) {
            return e.getMessage();
        }
    }

    /** A PID that no process has: one that just exited. */
    static long deadPid() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("true").start();
        process.waitFor(10, TimeUnit.SECONDS);
        return process.pid();
    }

    /** Ways the bad-input catalogue (cxc-core's BadInputCatalogueTest) damages a valid file. */
    enum Damage {
        TRUNCATED_BODY {
            @Override
            byte[] apply(byte[] valid) {
                return java.util.Arrays.copyOf(valid, valid.length - 32);
            }
        },
        WRONG_MAGIC {
            @Override
            byte[] apply(byte[] valid) {
                byte[] b = valid.clone();
                b[0] = 'X';
                return b;
            }
        },
        CORRUPT_CHECKSUM {
            @Override
            byte[] apply(byte[] valid) {
                byte[] b = valid.clone();
                b[HeaderDescriptor.CREATED_AT_OFFSET] ^= 0x55;
                return b;
            }
        },
        CORRUPT_BODY_MAGIC {
            @Override
            byte[] apply(byte[] valid) {
                byte[] b = valid.clone();
                b[HeaderDescriptor.HEADER_LENGTH] ^= 0x7F;
                return b;
            }
        },
        FUTURE_LAYOUT_VERSION {
            @Override
            byte[] apply(byte[] valid) {
                return withHeaderInt(valid, HeaderDescriptor.LAYOUT_VERSION_OFFSET, 99);
            }
        };

        abstract byte[] apply(byte[] valid);

        void applyTo(Path file) throws IOException {
            Files.write(file, apply(Files.readAllBytes(file)));
        }
    }

    /** {@code valid} with a header field changed and the checksum recomputed to match. */
    static byte[] withHeaderInt(byte[] valid, int offset, int value) {
        ByteBuffer b = ByteBuffer.wrap(valid.clone()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(offset, value);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, HeaderDescriptor.CHECKSUM_OFFSET);
        b.putInt(HeaderDescriptor.CHECKSUM_OFFSET, (int) crc.getValue());
        return b.array();
    }
}
