package io.walshadow.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobConfigTest {
    private static final String[] MINIMAL = {"--pg.host", "db.example", "--pg.database", "app", "--pg.user", "repl"};

    @Test
    void missingRequiredSettingNamesTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(new String[] {"--pg.host", "h", "--pg.user", "u"}, Map.of()));
        assertTrue(e.getMessage().contains("pg.database"), e.getMessage());
    }

    @Test
    void malformedValuesNameTheKey() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--pg.port", "54x"), Map.of()));
        assertTrue(port.getMessage().contains("pg.port"), port.getMessage());
        IllegalArgumentException interval = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--checkpoint.interval", "soon"), Map.of()));
        assertTrue(interval.getMessage().contains("checkpoint.interval"), interval.getMessage());
        IllegalArgumentException slot = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--slot", "Bad-Name"), Map.of()));
        assertTrue(slot.getMessage().contains("slot"), slot.getMessage());
        IllegalArgumentException web = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--local.web.port", "70000"), Map.of()));
        assertTrue(web.getMessage().contains("local.web.port") && web.getMessage().contains("70000"), web.getMessage());
        IllegalArgumentException restore = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--local.restore.from", "/nonexistent/chk-7"), Map.of()));
        assertTrue(restore.getMessage().contains("local.restore.from") && restore.getMessage().contains("/nonexistent/chk-7"),
                restore.getMessage());
    }

    @Test
    void localEndpointsDefaultToTheDashboardAndPrometheusPortsAndZeroTurnsThemOff() {
        assertEquals(new LocalEndpoints(8081, 9249), JobConfig.from(MINIMAL, Map.of()).local());
        LocalEndpoints off = JobConfig.from(concat(MINIMAL, "--local.web.port", "0", "--local.metrics.port", "0"),
                Map.of()).local();
        org.apache.flink.configuration.Configuration flink = new org.apache.flink.configuration.Configuration();
        off.applyTo(flink);
        assertTrue(flink.keySet().isEmpty(), "nothing configured: " + flink);
        assertTrue(off.describe().contains("no dashboard") && off.describe().contains("no Prometheus"), off.describe());
    }

    @Test
    void defaultsAndPasswordFromEnvironmentOnly() {
        JobConfig c = JobConfig.from(concat(MINIMAL, "--checkpoint.interval", "500ms"),
                Map.of(JobConfig.PG_PASSWORD_ENV, "s3cret"));
        assertEquals(5432, c.pg().port());
        assertEquals("walshadow", c.source().slotName());
        assertEquals(Duration.ofMillis(500), c.checkpointInterval());
        assertFalse(c.pg().toString().contains("s3cret"), "password must not appear in logs: " + c.pg());
        assertTrue(c.pg().toString().contains("******"));
    }

    @Test
    void preparedDropListsGids() {
        assertEquals(java.util.Set.of(), JobConfig.from(MINIMAL, Map.of()).preparedDrop());
        JobConfig c = JobConfig.from(concat(MINIMAL, "--xact.prepared.drop", "tx-2, tx 1,tx-2"), Map.of());
        assertEquals(java.util.List.of("tx-2", "tx 1"), java.util.List.copyOf(c.preparedDrop()), "request order, once");
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--xact.prepared.drop", "a,,b"), Map.of()));
        assertTrue(empty.getMessage().contains("xact.prepared.drop"), empty.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--xact.prepared.drop", "g".repeat(200)), Map.of()));
        assertTrue(tooLong.getMessage().contains("199 bytes"), tooLong.getMessage());
        JobConfig.from(concat(MINIMAL, "--xact.prepared.drop", "g".repeat(199)), Map.of());
    }

    @Test
    void passwordsFromFilesWinOverTheEnvironmentAndAnUnreadableFileIsNamed() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("walshadow-secrets");
        java.nio.file.Path pg = java.nio.file.Files.writeString(dir.resolve("pg"), "pg pw\n"); // as echo writes it
        java.nio.file.Path ch = java.nio.file.Files.writeString(dir.resolve("ch"), "ch\npw"); // inner break kept
        JobConfig c = JobConfig.from(concat(MINIMAL, "--pg.password.file", pg.toString(), "--clickhouse.url",
                "http://ch:8123", "--clickhouse.password.file", ch.toString()),
                Map.of(JobConfig.PG_PASSWORD_ENV, "env", JobConfig.CH_PASSWORD_ENV, "env"));
        assertEquals("pg pw", c.pg().password());
        assertEquals("ch\npw", c.clickhouse().password());
        assertFalse(c.clickhouse().quarantine(), "a value that cannot be written fails the job by default");
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> JobConfig.from(
                concat(MINIMAL, "--pg.password.file", dir.resolve("absent").toString()), Map.of()));
        assertTrue(missing.getMessage().startsWith("setting --pg.password.file: cannot read " + dir.resolve("absent")),
                missing.getMessage());
        assertTrue(JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.unwritable",
                "quarantine"), Map.of()).clickhouse().quarantine());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> JobConfig.from(
                concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.unwritable", "skip"), Map.of()));
        assertTrue(bad.getMessage().contains("--clickhouse.unwritable must be fail or quarantine, got 'skip'"),
                bad.getMessage());
    }

    @Test
    void visibility() {
        assertTrue(JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123"), Map.of()).clickhouse()
                .visibleAtCommit(), "rows become visible at commit by default");
        assertFalse(JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.visibility",
                "checkpoint"), Map.of()).clickhouse().visibleAtCommit(), "staged until the checkpoint on request");
        var commit = JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.visibility",
                "commit", "--clickhouse.visibility.interval", "250ms"), Map.of()).clickhouse();
        assertTrue(commit.visibleAtCommit());
        assertEquals(java.time.Duration.ofMillis(250), commit.directWrites());
        assertEquals(java.time.Duration.ofMillis(100), JobConfig.from(concat(MINIMAL, "--clickhouse.url",
                "http://ch:8123", "--clickhouse.visibility", "commit"), Map.of()).clickhouse().directWrites());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> JobConfig.from(
                concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.visibility", "now"), Map.of()));
        assertTrue(bad.getMessage().contains("--clickhouse.visibility must be checkpoint or commit, got 'now'"),
                bad.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> JobConfig.from(
                concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--clickhouse.visibility", "commit",
                        "--clickhouse.visibility.interval", "0ms"), Map.of()));
        assertTrue(zero.getMessage().contains("clickhouse.visibility.interval must be between 1ms and 60s"),
                zero.getMessage());
    }

    @Test
    void clickHouseSettings() {
        assertEquals(null, JobConfig.from(MINIMAL, Map.of()).clickhouse(), "no sink without --clickhouse.url");
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(MINIMAL, Map.of()).requireClickHouse());
        assertTrue(none.getMessage().contains("clickhouse.url"), none.getMessage());
        JobConfig c = JobConfig.from(concat(MINIMAL, "--clickhouse.url", "https://ch:8443", "--clickhouse.on.drop", "drop",
                "--slot", "s1"), Map.of(JobConfig.CH_PASSWORD_ENV, "chpw"));
        assertEquals("s1", c.clickhouse().sinkId(), "the sink id defaults to the slot");
        assertTrue(c.clickhouse().dropTables());
        assertEquals("chpw", c.clickhouse().password());
        assertFalse(c.clickhouse().toString().contains("chpw"), c.clickhouse().toString());
        assertEquals("confpw", JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123"), Map.of(),
                Map.of(JobConfig.CH_PASSWORD_KEY, "confpw")).clickhouse().password(), "from the Flink configuration");
        for (String[] bad : new String[][] {{"--clickhouse.url", "ch:8123"},
                {"--clickhouse.url", "http://ch", "--clickhouse.on.drop", "keep"},
                {"--clickhouse.url", "http://ch", "--clickhouse.sink.id", "bad-id"},
                {"--clickhouse.url", "http://ch", "--clickhouse.statement.timeout", "1500ms"},
                {"--clickhouse.url", "http://ch", "--clickhouse.statement.timeout", "soon"},
                {"--xact.buffer.heap.bytes", "-1"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> JobConfig.from(concat(MINIMAL, bad), Map.of()), String.join(" ", bad));
            String key = bad[bad.length - 2].substring(2);
            assertTrue(e.getMessage().contains(key.equals("clickhouse.sink.id") ? "sink id" : key), e.getMessage());
        }
        assertEquals(0, JobConfig.from(concat(MINIMAL, "--xact.buffer.heap.bytes", "0"), Map.of()).bufferHeapBytes());
        assertEquals(java.time.Duration.ofSeconds(60), c.clickhouse().statementTimeout());
        assertEquals(java.time.Duration.ofSeconds(5), JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch",
                "--clickhouse.statement.timeout", "5s"), Map.of()).clickhouse().statementTimeout());
    }

    @Test
    void toastSettings() {
        JobConfig d = JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123"), Map.of());
        assertEquals(io.walshadow.toast.ToastResolver.Mode.CLICKHOUSE, d.toastMode());
        assertTrue(d.clickhouse().toastMirrors(), "mode clickhouse: the sink writes mirrors");
        assertEquals(256L << 20, d.toastValueMaxBytes());
        assertEquals(64L << 20, d.toastFetchBatchBytes());
        JobConfig off = JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://ch:8123", "--toast.mode", "disabled",
                "--toast.value.max.bytes", "1000"), Map.of());
        assertEquals(io.walshadow.toast.ToastResolver.Mode.DISABLED, off.toastMode());
        assertFalse(off.clickhouse().toastMirrors(), "mode disabled: no mirrors");
        assertEquals(1000, off.toastValueMaxBytes());
        for (String[] bad : new String[][] {{"--toast.mode", "on"}, {"--toast.value.max.bytes", "0"},
                {"--toast.fetch.batch.bytes", "-5"}, {"--toast.value.max.bytes", "lots"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> JobConfig.from(concat(MINIMAL, bad), Map.of()), String.join(" ", bad));
            assertTrue(e.getMessage().contains(bad[0].substring(2)), e.getMessage());
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void aMisspelledSettingIsRefusedWithTheNearestKnownOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--tables.includ", "public.orders"), Map.of()));
        assertEquals("unknown setting --tables.includ; did you mean --tables.include? (docs/configuration.md lists"
                + " them all)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--no-such-thing-at-all", "1"), Map.of()));
        assertEquals("unknown setting --no-such-thing-at-all (docs/configuration.md lists them all)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--slot.create", "yes"), Map.of()));
        assertEquals("setting --slot.create must be true or false, got 'yes'", e.getMessage());
    }

    @Test
    void everyKnownKeyIsDocumented() throws Exception {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "configuration.md"));
        for (String key : JobConfig.KEYS) {
            assertTrue(doc.contains("--" + key) || doc.contains("`" + key + "`"), "docs/configuration.md lacks " + key);
        }
    }

    @Test
    void tlsIsVerifiedByDefaultAndCredentialsInTheClickHouseUrlAreRefused() {
        JobConfig c = JobConfig.from(MINIMAL, Map.of());
        assertTrue(c.pg().toString().contains("verify-full") || c.pg().jdbcUrl().contains("sslmode=verify-full"),
                c.pg().jdbcUrl());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JobConfig.from(concat(MINIMAL, "--clickhouse.url", "http://bob:s3cret@ch:8123"), Map.of()));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().startsWith("setting --clickhouse.url must not carry credentials"), e.getMessage());
    }
}
