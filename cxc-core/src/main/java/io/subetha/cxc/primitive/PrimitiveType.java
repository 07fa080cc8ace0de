package io.subetha.cxc.primitive;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.BodyLayout;
import io.subetha.cxc.internal.FileSpec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.internal.MappedFiles;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpCounters;
import io.subetha.cxc.observe.OpKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Everything that makes a file one kind of primitive, in one object per primitive (its {@code
 * TYPE}): the kind, the layout version, the body magic, how the body's shape follows from the
 * creation settings {@code S}, the op kinds, how a new body is initialised and an opened one
 * checked, and how a mapped file and its settings become the primitive {@code P}. Its {@link
 * #create}, {@link #open} and {@link #openOrCreate} are the only way a primitive's file is made or
 * opened: each checks everything and formats every error the same way, so a primitive's own
 * factories are one-line conveniences.
 *
 * <p><b>Built whole.</b> The primitive's {@link Constructor} receives the settings the file was
 * created or opened with, codecs included, so every field of a primitive is final and no operation
 * checks for a missing codec. An observer that knows no codecs (the actuator, the CLI, a tool that
 * opens any file) gets a {@link PrimitiveView} from {@link #observe}: read-only, made from the
 * settings the file {@linkplain Builder#recorded records}, with opaque byte codecs of the recorded
 * sizes standing in for the typed ones.
 *
 * <p><b>Settings</b> are a record whose constructor validates (the one place a limit or a default
 * lives); an invalid one throws {@link io.subetha.cxc.CxcSettingsException} naming the setting.
 *
 * <p><b>Typed primitives</b> declare their {@link FixedCodec}s: a new file records their layout
 * fingerprint and payload sizes at the start of the body ({@link #CODEC_FINGERPRINT_OFFSET}), and
 * opening it with other codecs is a {@link CxcFormatException} naming both layouts.
 */
public final class PrimitiveType<P extends MappedPrimitive, S> {

    /** Where a typed primitive's body keeps its codecs' combined layout fingerprint (u64). */
    public static final int CODEC_FINGERPRINT_OFFSET = 8;

    /** Where a typed primitive's body keeps each codec's payload size (u32 each, at most two). */
    public static final int CODEC_SIZES_OFFSET = 16;

    /** The first body offset a typed primitive's own layout may use. */
    public static final int TYPED_BODY_START = 24;

    /** The capacity and slot size a file's header declares; {@link #ANY} on open accepts any. */
    public record Shape(int capacity, int slotSize) {
        public static final int ANY = FileSpec.ANY;
        public static final Shape NONE = new Shape(0, 0);
    }

    /**
     * Builds the primitive, whole, over a validated mapped file: {@code settings} are the ones the
     * file was created with, or the caller's expected ones it was checked against on open (codecs
     * included); {@code options} are the ones it was opened with, for a primitive that opens a
     * companion file.
     */
    @FunctionalInterface
    public interface Constructor<P, S> {
        P construct(MappedFile file, S settings, CxcFileOptions options);
    }

    /**
     * The settings a validated file records (its header's capacity, its body's own fields, its
     * codec block's sizes as {@link #recordedCodec opaque codecs}): what an observer that brings no
     * settings builds the primitive with.
     */
    @FunctionalInterface
    public interface Recorded<S> {
        S of(MappedFile file);
    }

    /** How a file's header shape follows from its path and settings. */
    @FunctionalInterface
    public interface ShapeOf<S> {
        Shape of(Path path, S settings);
    }

    /** Writes a new body's initial state, after the magic (and the codec block, if typed). */
    @FunctionalInterface
    public interface Initialiser<S> {
        void initialise(AtomicBuffer body, S settings);
    }

    /** Checks what an opened body declares beyond the header, before it is trusted. */
    @FunctionalInterface
    public interface BodyCheck {
        /**
         * @return null if the body is sound, else the problem, for the common error format
         */
        @Nullable String problem(AtomicBuffer body);
    }

    /**
     * Checks what an opened body declares against its header (a count of slots the header's
     * capacity must equal, payload sizes that must give its slot size), before it is trusted: by
     * the time the primitive is built, and an observer's settings read, the file is sound.
     */
    @FunctionalInterface
    public interface ShapeCheck {
        /**
         * @return null if the body agrees with the header, else the problem
         */
        @Nullable String problem(FileHeader header, AtomicBuffer body);
    }

    private final PrimitiveKinds.Kind kind;
    private final int layoutVersion;
    private final long bodyMagic;
    private final List<OpCounters.Op> ops;
    private final Class<? extends Enum<?>> opKinds;
    private final ShapeOf<S> shape;
    private final BodyLayout layout;
    private final Initialiser<S> initialiser;
    private final BodyCheck bodyCheck;
    private final ShapeCheck shapeCheck;
    private final Constructor<P, S> constructor;
    private final Recorded<S> recorded;
    private final S defaults;
    private final @Nullable Function<S, List<FixedCodec<?>>> codecs;
    private final Consumer<Path> prepareDefaults;

    private PrimitiveType(Builder<P, S> b) {
        this.kind = Objects.requireNonNull(b.kind, "kind");
        this.layoutVersion = b.layoutVersion;
        this.bodyMagic = HeaderDescriptor.asciiMagic(Objects.requireNonNull(b.bodyMagic, "magic"));
        this.opKinds = Objects.requireNonNull(b.opKinds, "ops");
        this.ops = b.newCounters.get().ops();
        this.shape = Objects.requireNonNull(b.shape, "shape");
        this.layout = Objects.requireNonNull(b.layout, "layout");
        this.initialiser = b.initialiser;
        this.bodyCheck = b.bodyCheck;
        this.shapeCheck = b.shapeCheck;
        this.constructor = Objects.requireNonNull(b.constructor, "constructor");
        this.defaults = Objects.requireNonNull(b.defaults, "defaults");
        S fallback = defaults;
        this.recorded = b.recorded != null ? b.recorded : file -> fallback;
        this.codecs = b.codecs;
        this.prepareDefaults = b.prepareDefaults;
        this.newCounters = b.newCounters;
        if (layoutVersion < 1) {
            throw new IllegalArgumentException("layout version must be 1 or more");
        }
    }

    private final java.util.function.Supplier<OpCounters> newCounters;

    /** Starts the definition of a primitive of {@code kind} created from settings {@code S}. */
    public static <P extends MappedPrimitive, S> Builder<P, S> define(
            PrimitiveKinds.Kind kind, Class<S> settings) {
        return new Builder<>(kind);
    }

    // --------------------------------------------------------------------------- factories

    /**
     * Creates a new file with {@code settings}; fails if the path exists.
     *
     * <p>This and the other ways in return the type the caller assigns to ({@code SharedVec<Long>
     * vec = SharedVec.TYPE.create(path, new SharedVec.Settings<>(16, FixedCodec.INT64))}): a typed
     * primitive's type argument follows from its settings' codecs, which Java cannot say of a
     * {@code TYPE} shared by every codec. A primitive's own {@code open}/{@code openOrCreate} say
     * it in their signatures.
     */
    @SuppressWarnings("unchecked")
    public <Q extends P> Q create(Path path, S settings, CxcFileOptions options) {
        return (Q)
                construct(
                        MappedFiles.create(
                                path,
                                spec(path, settings),
                                body -> initialise(body, settings),
                                options),
                        settings,
                        options);
    }

    /** {@link #create(Path, Object, CxcFileOptions)} with the default options. */
    public <Q extends P> Q create(Path path, S settings) {
        return create(path, settings, CxcFileOptions.defaults());
    }

    /**
     * Opens and validates an existing file whose shape (and codecs, for a typed primitive) must
     * match {@code expected}'s.
     */
    @SuppressWarnings("unchecked")
    public <Q extends P> Q open(Path path, S expected, CxcFileOptions options) {
        MappedFile file = MappedFiles.open(path, spec(path, expected), options);
        checkCodecs(file, expected);
        return (Q) construct(file, expected, options);
    }

    /** {@link #open(Path, Object, CxcFileOptions)} with the default options. */
    public <Q extends P> Q open(Path path, S expected) {
        return open(path, expected, CxcFileOptions.defaults());
    }

    /** Opens the file, or creates it with {@code settings}; race-safe across processes. */
    @SuppressWarnings("unchecked")
    public <Q extends P> Q openOrCreate(Path path, S settings, CxcFileOptions options) {
        MappedFile file =
                MappedFiles.openOrCreate(
                        path, spec(path, settings), body -> initialise(body, settings), options);
        if (!file.created()) {
            checkCodecs(file, settings);
        }
        return (Q) construct(file, settings, options);
    }

    /** {@link #openOrCreate(Path, Object, CxcFileOptions)} with the default options. */
    public <Q extends P> Q openOrCreate(Path path, S settings) {
        return openOrCreate(path, settings, CxcFileOptions.defaults());
    }

    /**
     * Opens an existing file of any shape with the settings it records: for a primitive without
     * codecs, whose every setting the file holds ("open the heartbeat table, whatever its
     * capacity").
     *
     * @throws IllegalStateException for a typed primitive, which needs its codecs: use {@link
     *     #open(Path, Object, CxcFileOptions)}
     */
    public P openAsRecorded(Path path, CxcFileOptions options) {
        if (codecs != null) {
            throw new IllegalStateException(
                    kind
                            + " is typed: open it with its codecs (open(path, settings)); an"
                            + " observer that has none uses observe(path)");
        }
        MappedFile file = openAnyShape(path, options);
        return constructRecorded(file, options);
    }

    /**
     * Opens an existing file of any shape for reading what it holds: the observer's way in (the
     * actuator, the CLI, a tool that opens every file in a directory). The view reads the header
     * and {@code describe()}, and writes nothing.
     */
    public PrimitiveView observe(Path path, CxcFileOptions options) {
        return new PrimitiveView(constructRecorded(openAnyShape(path, options), options));
    }

    /** {@link #observe(Path, CxcFileOptions)} with the default options. */
    public PrimitiveView observe(Path path) {
        return observe(path, CxcFileOptions.defaults());
    }

    /**
     * The settings the file at {@code path} records, its codecs opaque ({@link #recordedCodec}):
     * what a typed primitive's "open whatever capacity it has" factory combines with its codecs.
     */
    public S recordedSettings(Path path, CxcFileOptions options) {
        MappedFile file = openAnyShape(path, options);
        try {
            checkBody(file);
            return recordedOf(file);
        } finally {
            file.close();
        }
    }

    /**
     * A file whose body records settings no creator could have made (the record's own check refuses
     * them) is corrupt: said in the open errors' format, not as a bad setting of the caller's.
     */
    private S recordedOf(MappedFile file) {
        try {
            return recorded.of(file);
        } catch (CxcSettingsException e) {
            throw corrupt(file.path(), "it records " + e.getMessage());
        }
    }

    /**
     * An opaque codec of the size a typed file's codec block records at {@code index} (0 or 1): how
     * a {@link Recorded} settings function stands in for a codec the observer does not know.
     */
    public static FixedCodec<byte[]> recordedCodec(MappedFile file, int index) {
        int size = file.body().getIntAcquire(CODEC_SIZES_OFFSET + 4 * index);
        if (size < 1 || size > file.header().bodyLength()) {
            throw new CxcFormatException(
                    "cannot open "
                            + file.path()
                            + ": its codec block records payload size "
                            + size
                            + " for payload "
                            + index
                            + ", outside 1.."
                            + file.header().bodyLength()
                            + " (the body's length); the body is corrupt. The file was left"
                            + " untouched.");
        }
        return FixedCodec.bytes(size);
    }

    private MappedFile openAnyShape(Path path, CxcFileOptions options) {
        return MappedFiles.open(path, fileSpec(new Shape(Shape.ANY, Shape.ANY)), options);
    }

    private P constructRecorded(MappedFile file, CxcFileOptions options) {
        S settings;
        try {
            checkBody(file);
            settings = recordedOf(file);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
        return construct(file, settings, options);
    }

    // ------------------------------------------------------------------------------- reads

    public PrimitiveKinds.Kind kind() {
        return kind;
    }

    /** The kind's name: "heartbeat-table". */
    public String name() {
        return kind.name();
    }

    public int code() {
        return kind.code();
    }

    public int layoutVersion() {
        return layoutVersion;
    }

    public long bodyMagic() {
        return bodyMagic;
    }

    /** The ops this primitive counts and exports, in code order. */
    public List<OpCounters.Op> ops() {
        return ops;
    }

    /** The {@link OpKind} enum the ops come from. */
    public Class<? extends Enum<?>> opKinds() {
        return opKinds;
    }

    /** The settings a file gets when none are given: the defaults of every setting. */
    public S defaults() {
        return defaults;
    }

    /**
     * Creates in {@code directory} whatever {@link #defaults()} refers to (another primitive's
     * file), for tests and tools that create a file of every kind.
     */
    public void prepareDefaults(Path directory) {
        prepareDefaults.accept(directory);
    }

    /** Whether files of this kind carry a codec block. */
    public boolean isTyped() {
        return codecs != null;
    }

    OpCounters newCounters() {
        return newCounters.get();
    }

    /**
     * The error for a body this type's {@link BodyCheck} or its primitive refuses: the same format
     * as every other open error.
     */
    public CxcFormatException corrupt(Path path, String problem) {
        return new CxcFormatException(
                "cannot open "
                        + path
                        + " as "
                        + kind.withArticle()
                        + " file (layout version "
                        + layoutVersion
                        + "): "
                        + problem
                        + "; the body is corrupt. The file was left untouched.");
    }

    /**
     * The error for a body found damaged while a handle operates on it (a word outside what the
     * protocol ever writes): nothing the caller did, so it says what to do with the file.
     */
    public CxcFormatException damaged(Path path, String problem) {
        return new CxcFormatException(
                path
                        + " is "
                        + kind.withArticle()
                        + " file (layout version "
                        + layoutVersion
                        + ") whose body is damaged: "
                        + problem
                        + ". Something other than cxc wrote to it, or truncated it; stop its"
                        + " processes and recreate the file (its contents cannot be trusted).");
    }

    @Override
    public String toString() {
        return kind.name() + " (kind " + kind.code() + ", layout " + layoutVersion + ")";
    }

    // ----------------------------------------------------------------------------- helpers

    private FileSpec spec(Path path, S settings) {
        return fileSpec(shape.of(path, settings));
    }

    private FileSpec fileSpec(Shape s) {
        return new FileSpec(
                kind.code(),
                kind.name(),
                layoutVersion,
                s.capacity(),
                s.slotSize(),
                layout,
                PrimitiveKinds::nameOf);
    }

    private void initialise(AtomicBuffer body, S settings) {
        body.setLongPlain(0, bodyMagic);
        if (codecs != null) {
            List<FixedCodec<?>> list = codecs.apply(settings);
            if (list.isEmpty() || list.size() > 2) {
                throw new IllegalStateException(
                        kind
                                + " declares "
                                + list.size()
                                + " codecs; a body's codec block holds 1 or 2");
            }
            body.setLongPlain(CODEC_FINGERPRINT_OFFSET, fingerprint(list));
            for (int i = 0; i < list.size(); i++) {
                body.setIntPlain(CODEC_SIZES_OFFSET + 4 * i, list.get(i).size());
            }
        }
        initialiser.initialise(body, settings);
    }

    private P construct(MappedFile file, S settings, CxcFileOptions options) {
        checkBody(file);
        return constructor.construct(file, settings, options);
    }

    private void checkBody(MappedFile file) {
        AtomicBuffer body = file.body();
        long magic = body.getLongAcquire(0);
        if (magic != bodyMagic) {
            throw corrupt(
                    file.path(),
                    String.format(
                            "body magic 0x%016x, expected 0x%016x (\"%s\")",
                            magic, bodyMagic, HeaderDescriptor.asciiOf(bodyMagic)));
        }
        String problem = bodyCheck.problem(body);
        if (problem == null) {
            problem = shapeCheck.problem(file.header(), body);
        }
        if (problem != null) {
            throw corrupt(file.path(), problem);
        }
    }

    private void checkCodecs(MappedFile file, S expected) {
        if (codecs == null) {
            return;
        }
        List<FixedCodec<?>> list = codecs.apply(expected);
        AtomicBuffer body = file.body();
        long stored = body.getLongAcquire(CODEC_FINGERPRINT_OFFSET);
        boolean sizesMatch = true;
        StringBuilder storedSizes = new StringBuilder();
        StringBuilder expectedLayouts = new StringBuilder();
        for (int i = 0; i < list.size(); i++) {
            int size = body.getIntAcquire(CODEC_SIZES_OFFSET + 4 * i);
            sizesMatch &= size == list.get(i).size();
            storedSizes.append(i == 0 ? "" : ", ").append(size);
            expectedLayouts
                    .append(i == 0 ? "" : " and ")
                    .append(list.get(i).describe())
                    .append(" (")
                    .append(list.get(i).size())
                    .append(" bytes)");
        }
        long wanted = fingerprint(list);
        if (stored != wanted || !sizesMatch) {
            throw new CxcFormatException(
                    String.format(
                            "cannot open %s as %s file with payloads %s, layout fingerprint"
                                    + " 0x%016x: the file was created with payload layout"
                                    + " fingerprint 0x%016x and payload sizes %s bytes, another"
                                    + " layout (a changed record, another codec). Open it with the"
                                    + " codecs it was created with, or give the new layout a new"
                                    + " file. The file was left untouched.",
                            file.path(),
                            kind.withArticle(),
                            expectedLayouts,
                            wanted,
                            stored,
                            storedSizes));
        }
    }

    /**
     * The fingerprint of a primitive's codecs: the codec's own for one, else FNV-1a over theirs in
     * order.
     */
    static long fingerprint(List<FixedCodec<?>> list) {
        if (list.size() == 1) {
            return list.get(0).fingerprint();
        }
        long hash = 0xcbf29ce484222325L;
        for (FixedCodec<?> codec : list) {
            long f = codec.fingerprint();
            for (int b = 0; b < 8; b++) {
                hash ^= (f >>> (8 * b)) & 0xFF;
                hash *= 0x100000001b3L;
            }
        }
        return hash == 0 ? 1 : hash;
    }

    // ----------------------------------------------------------------------------- builder

    /** Collects a {@link PrimitiveType}'s parts; see {@link #define}. */
    public static final class Builder<P extends MappedPrimitive, S> {
        private final PrimitiveKinds.Kind kind;
        private int layoutVersion = 1;
        private @Nullable String bodyMagic;
        private @Nullable Class<? extends Enum<?>> opKinds;
        private java.util.function.@Nullable Supplier<OpCounters> newCounters;
        private @Nullable ShapeOf<S> shape;
        private @Nullable BodyLayout layout;
        private Initialiser<S> initialiser = (body, settings) -> {};
        private BodyCheck bodyCheck = body -> null;
        private ShapeCheck shapeCheck = (header, body) -> null;
        private @Nullable Constructor<P, S> constructor;
        private @Nullable Recorded<S> recorded;
        private @Nullable S defaults;
        private @Nullable Function<S, List<FixedCodec<?>>> codecs;
        private Consumer<Path> prepareDefaults = directory -> {};

        private Builder(PrimitiveKinds.Kind kind) {
            this.kind = kind;
        }

        public Builder<P, S> layoutVersion(int version) {
            this.layoutVersion = version;
            return this;
        }

        /** Eight ASCII characters every body of this kind starts with: "HEARTBT1". */
        public Builder<P, S> bodyMagic(String eightChars) {
            this.bodyMagic = eightChars;
            return this;
        }

        public <E extends Enum<E> & OpKind> Builder<P, S> ops(Class<E> kinds) {
            this.opKinds = kinds;
            this.newCounters = () -> OpCounters.of(kinds);
            return this;
        }

        /** A body of one fixed length and no capacity. */
        public Builder<P, S> fixedBody(long length) {
            this.shape = (path, settings) -> Shape.NONE;
            this.layout = BodyLayout.fixed(length);
            return this;
        }

        /**
         * How the header's capacity and slot size follow from the settings, and the body's length
         * from them.
         */
        public Builder<P, S> shape(Function<S, Shape> fromSettings, BodyLayout bodyLayout) {
            return shape((path, settings) -> fromSettings.apply(settings), bodyLayout);
        }

        /** {@link #shape(Function, BodyLayout)} for a shape that also depends on the path. */
        public Builder<P, S> shape(ShapeOf<S> fromPathAndSettings, BodyLayout bodyLayout) {
            this.shape = fromPathAndSettings;
            this.layout = bodyLayout;
            return this;
        }

        public Builder<P, S> initialiser(Initialiser<S> value) {
            this.initialiser = value;
            return this;
        }

        /** A check of what the body declares against the header, after {@link #bodyCheck}. */
        public Builder<P, S> shapeCheck(ShapeCheck value) {
            this.shapeCheck = value;
            return this;
        }

        public Builder<P, S> bodyCheck(BodyCheck value) {
            this.bodyCheck = value;
            return this;
        }

        public Builder<P, S> codecs(Function<S, List<FixedCodec<?>>> value) {
            this.codecs = value;
            return this;
        }

        public Builder<P, S> defaults(S value, Consumer<Path> prepare) {
            this.defaults = value;
            this.prepareDefaults = prepare;
            return this;
        }

        public Builder<P, S> defaults(S value) {
            this.defaults = value;
            return this;
        }

        /**
         * How an observer's settings follow from a validated file; a typed primitive's stand in for
         * its codecs with {@link PrimitiveType#recordedCodec}. Without it an observer builds the
         * primitive with {@link #defaults}.
         */
        public Builder<P, S> recorded(Recorded<S> value) {
            this.recorded = value;
            return this;
        }

        /** Ends the definition: how the primitive is built over its file and settings. */
        public PrimitiveType<P, S> construct(Constructor<P, S> value) {
            this.constructor = value;
            return new PrimitiveType<>(this);
        }
    }
}
