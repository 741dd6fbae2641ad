package io.walshadow.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The server's own pg_waldump, the outside oracle of the WAL tests. */
public final class PgWaldump {
    private PgWaldump() {}

    /**
     * Runs pg_waldump with {@code args}; fails the test on a nonzero exit or anything on stderr. Timestamps print in
     * UTC. The output is read as Latin-1 (a record's description may hold any bytes).
     */
    public static List<String> run(String... args) throws IOException, InterruptedException {
        return run(StandardCharsets.ISO_8859_1, args);
    }

    /** As {@link #run(String...)}, the output read in {@code charset}. */
    public static List<String> run(Charset charset, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(LocalPg.bin("pg_waldump").toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("pg_waldump", ".out");
        Path err = Files.createTempFile("pg_waldump", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().put("TZ", "UTC"); // timestamptz_to_str prints local time
            int rc = pb.start().waitFor();
            String errText = Files.readString(err, charset);
            if (rc != 0 || !errText.isEmpty()) {
                fail(String.join(" ", cmd) + " exited " + rc + ": " + errText);
            }
            return Files.readAllLines(out, charset);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
