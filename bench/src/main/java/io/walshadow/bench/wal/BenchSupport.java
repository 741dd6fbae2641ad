package io.walshadow.bench.wal;

import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** What the benchmark programs share: running pgbench against the local stack, and their log lines. */
final class BenchSupport {
    private BenchSupport() {}

    static void log(String s) {
        System.out.println("[bench] " + s);
    }

    /** Runs pgbench with {@code args} against database {@code db}, logging its summary lines; fails on error. */
    static void pgbench(String db, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(LocalPg.bin("pgbench").toString(), "-h", LocalPg.host(),
                "-p", String.valueOf(LocalPg.port()), "-U", LocalPg.user()));
        cmd.addAll(Arrays.asList(args));
        cmd.add(db);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", LocalPg.password());
        log("$ " + String.join(" ", cmd));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("pgbench failed:\n" + out);
        }
        for (String line : out.split("\n")) {
            if (line.startsWith("tps") || line.startsWith("number of transactions actually") || line.startsWith("done in")) {
                log("  " + line.trim());
            }
        }
    }
}
