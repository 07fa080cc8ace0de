package io.subetha.cxc.primitive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.catalog.PrimitiveCatalog;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every primitive gets from its base class and its type, on an untyped test primitive with a
 * body check: the handle's name, file, creation and closing, counting into a predecessor of its own
 * type only; an untyped type opened with settings (no codec block to check); a body its check
 * refuses; a one-codec mismatch's text; and the kind registry's ranges and names.
 */
class UntypedPrimitiveAndRegistryTest {

    @TempDir Path dir;

    /** A fixed-body primitive without codecs whose body check refuses a non-zero word 8. */
    static final class Plain extends MappedPrimitive {
        static final PrimitiveKinds.Kind KIND =
                new PrimitiveKinds.Kind(60_004, "plain-cell", PrimitiveKinds.TEST);

        static final List<Path> PREPARED = new ArrayList<>();

        enum Op implements OpKind {
            TOUCH;

            @Override
            public int code() {
                return 1;
            }
        }

        record Settings(int unused) {}

        static final PrimitiveType<Plain, Settings> TYPE =
                PrimitiveType.<Plain, Settings>define(KIND, Settings.class)
                        .bodyMagic("PLAINCL1")
                        .ops(Op.class)
                        .fixedBody(64)
                        .bodyCheck(
                                body ->
                                        body.getLongVolatile(8) == 0
                                                ? null
                                                : "word 8 is " + body.getLongVolatile(8))
                        .defaults(new Settings(0), PREPARED::add)
                        .construct((file, settings, options) -> new Plain(file));

        Plain(MappedFile file) {
            super(file, TYPE);
        }

        /** Takes over {@code predecessor}'s counters, as a re-opened election handle does. */
        void continueCountingOf(MappedPrimitive predecessor) {
            countInto(predecessor);
        }

        void touch() {
            counters.increment(1);
        }

        @Override
        public Map<String, Object> describe() {
            return fields("a", 1, "b", "two");
        }
    }

    private Plain create(String name) {
        return Plain.TYPE.create(
                dir.resolve(name), new Plain.Settings(0), CxcFileOptions.defaults());
    }

    @Test
    void aHandleNamesItsFileAndKnowsWhetherItCreatedItAndWhetherItIsClosed() {
        Path path = dir.resolve("cell.cxc");
        try (Plain created = create("cell.cxc")) {
            assertThat(created.name()).isEqualTo("cell.cxc");
            assertThat(created.file()).isEqualTo(path.toAbsolutePath());
            assertThat(created.kind()).isEqualTo("plain-cell");
            assertThat(created.type()).isSameAs(Plain.TYPE);
            assertThat(created.createdFile()).isTrue();
            assertThat(created.isClosed()).isFalse();
            assertThat(created.toString())
                    .isEqualTo("plain-cell " + path.toAbsolutePath() + " {a=1, b=two}");
        }
        Plain opened = Plain.TYPE.open(path, new Plain.Settings(0), CxcFileOptions.defaults());
        assertThat(opened.createdFile()).isFalse();
        assertThat(opened.fileKey()).isNotNull();
        opened.close();
        assertThat(opened.isClosed()).isTrue();
    }

    @Test
    void aHandleCountsIntoAPredecessorOfItsOwnTypeOnly() {
        try (Plain first = create("first.cxc");
                Plain second = create("second.cxc");
                TypedCell<?> other =
                        TypedCell.TYPE.create(
                                dir.resolve("typed.cxc"),
                                new TypedCell.Settings(FixedCodec.INT64),
                                CxcFileOptions.defaults())) {
            first.touch();
            second.continueCountingOf(first);
            second.touch();
            assertThat(second.opCounters()).isSameAs(first.opCounters());
            assertThat(first.opCounters().get(1)).isEqualTo(2);
            assertThatThrownBy(() -> second.continueCountingOf(other))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a plain-cell cannot count into a typed-cell");
        }
    }

    @Test
    void anUntypedTypeOpensWithSettingsAndHasNoCodecBlock() {
        create("untyped.cxc").close();
        assertThat(Plain.TYPE.isTyped()).isFalse();
        assertThat(TypedCell.TYPE.isTyped()).isTrue();
        Plain.TYPE
                .open(dir.resolve("untyped.cxc"), new Plain.Settings(0), CxcFileOptions.defaults())
                .close();
        Plain.TYPE
                .openOrCreate(
                        dir.resolve("untyped.cxc"),
                        new Plain.Settings(0),
                        CxcFileOptions.defaults())
                .close();
    }

    @Test
    void aBodyItsCheckRefusesIsCorruptAndLeftUntouched() throws Exception {
        Path path = dir.resolve("refused.cxc");
        create("refused.cxc").close();
        RawBody.of(path).setLongVolatile(8, 42);
        byte[] before = Files.readAllBytes(path);
        assertThatThrownBy(() -> Plain.TYPE.observe(path, CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessage(
                        "cannot open "
                                + path
                                + " as a plain-cell file (layout version 1): word 8 is 42; the"
                                + " body is corrupt. The file was left untouched.");
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
    }

    @Test
    void aTypesCodeMagicAndDefaultsAreItsDefinitions() {
        assertThat(Plain.TYPE.code()).isEqualTo(60_004);
        assertThat(Plain.TYPE.name()).isEqualTo("plain-cell");
        assertThat(Plain.TYPE.kind()).isSameAs(Plain.KIND);
        assertThat(Plain.TYPE.bodyMagic()).isEqualTo(HeaderDescriptor.asciiMagic("PLAINCL1"));
        assertThat(Plain.TYPE.defaults()).isEqualTo(new Plain.Settings(0));
        assertThat(Plain.TYPE.opKinds()).isEqualTo(Plain.Op.class);
        Plain.TYPE.prepareDefaults(dir);
        assertThat(Plain.PREPARED).contains(dir);
    }

    @Test
    void aOneCodecMismatchNamesTheExpectedLayoutWithoutASeparator() {
        Path path = dir.resolve("typed.cxc");
        TypedCell.TYPE
                .create(path, new TypedCell.Settings(FixedCodec.INT64), CxcFileOptions.defaults())
                .close();
        assertThatThrownBy(
                        () ->
                                TypedCell.TYPE.open(
                                        path,
                                        new TypedCell.Settings(FixedCodec.INT32),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(
                        "as a typed-cell file with payloads "
                                + FixedCodec.INT32.describe()
                                + " (4 bytes), layout fingerprint")
                .hasMessageContaining("and payload sizes 8 bytes, another layout");
    }

    @Test
    void aFamilyHoldsExactlyItsRangeEndsIncluded() {
        PrimitiveKinds.Family family =
                new PrimitiveKinds.Family(
                        "f",
                        "f",
                        List.of(new PrimitiveKinds.Range(1, 1), new PrimitiveKinds.Range(16, 31)));
        assertThat(family.contains(1)).isTrue();
        assertThat(family.contains(16)).isTrue();
        assertThat(family.contains(31)).isTrue();
        assertThat(family.contains(2)).isFalse();
        assertThat(family.contains(15)).isFalse();
        assertThat(family.contains(32)).isFalse();
        assertThat(PrimitiveKinds.LEASE.contains(PrimitiveKinds.LEADER_ELECTION.code())).isFalse();
        assertThat(PrimitiveKinds.ELECTION.contains(PrimitiveKinds.FENCED_LEDGER.code())).isTrue();
        assertThatThrownBy(() -> new PrimitiveKinds.Range(5, 4))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKindIsNamedWithItsArticleAndPrintsAsItsName() {
        assertThat(PrimitiveKinds.ASYNC_POINTER.withArticle()).isEqualTo("an async-pointer");
        assertThat(PrimitiveKinds.EPOCH_BARRIER.withArticle()).isEqualTo("an epoch-barrier");
        assertThat(PrimitiveKinds.OWNER_LEASE.withArticle()).isEqualTo("an owner-lease");
        assertThat(PrimitiveKinds.LEADER_ELECTION.withArticle()).isEqualTo("a leader-election");
        assertThat(PrimitiveKinds.SHARED_VEC.withArticle()).isEqualTo("a shared-vec");
        assertThat(PrimitiveKinds.SHARED_VEC.toString()).isEqualTo("shared-vec");
    }

    @Test
    void aKindTheCatalogDoesNotListIsRefusedByName() {
        assertThatThrownBy(() -> PrimitiveCatalog.typeOf(Plain.KIND))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("kind plain-cell is not one of this library's");
    }
}
