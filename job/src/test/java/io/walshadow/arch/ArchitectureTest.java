package io.walshadow.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules, checked on the compiled main classes of every module: {@code decoding} is plain Java (no
 * Flink, no JDBC: reading the catalog from the server is the PostgreSQL kit's, {@code io.walshadow.pg}), the shared
 * kits do not reach into the stages, and the stages depend on each other without cycles.
 */
class ArchitectureTest {
    /** The Flink-free decoding packages (the {@code decoding} module). */
    static final String[] DECODING = {"io.walshadow.wal..", "io.walshadow.compress..", "io.walshadow.xact..",
            "io.walshadow.heap..", "io.walshadow.types..", "io.walshadow.catalog..", "io.walshadow.change.."};
    /** The pipeline's stages, each a package (the ClickHouse statements and commit protocol belong to the sink). */
    static final Map<String, String> STAGES = Map.of("source", "source", "decoder", "decoder", "buffer", "buffer",
            "toast", "toast", "sink", "sink", "clickhouse", "sink", "snapshot", "snapshot");
    /** Shared kits the stages use: PostgreSQL connections and the codec kit of the state formats. */
    static final String[] KITS = {"io.walshadow.pg..", "io.walshadow.codec.."};

    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(l -> !l.contains("-tests.jar") && !l.contains("/test-classes/"))
                .importPackages("io.walshadow");
    }

    @Test
    void decodingIsFreeOfFlink() {
        noClasses().that().resideInAnyPackage(DECODING).should().dependOnClassesThat()
                .resideInAnyPackage("org.apache.flink..").check(classes);
    }

    @Test
    void decodingIsFreeOfJdbc() {
        noClasses().that().resideInAnyPackage(DECODING).should().dependOnClassesThat()
                .resideInAnyPackage("java.sql..", "org.postgresql..").check(classes);
    }

    @Test
    void decodingKnowsNothingOfTheStages() {
        noClasses().that().resideInAnyPackage(DECODING).should().dependOnClassesThat()
                .resideInAnyPackage(concat(concat(stagePackages(), KITS), "io.walshadow.job..", "io.walshadow.state.."))
                .check(classes);
    }

    @Test
    void kitsDoNotReachIntoTheStages() {
        noClasses().that().resideInAnyPackage(KITS).should().dependOnClassesThat()
                .resideInAnyPackage(stagePackages()).check(classes);
    }

    @Test
    void nothingButTheJobDependsOnTheJob() {
        noClasses().that().resideOutsideOfPackage("io.walshadow.job..").should().dependOnClassesThat()
                .resideInAPackage("io.walshadow.job..").check(classes);
    }

    @Test
    void stagesDependOnEachOtherWithoutCycles() {
        slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String p = c.getPackageName();
                if (!p.startsWith("io.walshadow.")) {
                    return SliceIdentifier.ignore();
                }
                String top = p.substring("io.walshadow.".length()).split("\\.")[0];
                String stage = STAGES.get(top);
                return stage == null ? SliceIdentifier.ignore() : SliceIdentifier.of(stage);
            }

            @Override
            public String getDescription() {
                return "the pipeline's stages";
            }
        }).should().beFreeOfCycles().check(classes);
    }

    private static String[] stagePackages() {
        return STAGES.keySet().stream().map(s -> "io.walshadow." + s + "..").toArray(String[]::new);
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
