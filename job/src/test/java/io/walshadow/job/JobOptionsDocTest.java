package io.walshadow.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.TextElement;
import org.junit.jupiter.api.Test;

/**
 * The table of settings in {@code docs/configuration.md} is what {@link JobOptions} says: key, default and meaning,
 * in order. A changed option (or a hand edit of the table) fails here; {@code -Dwalshadow.docs.write=true} rewrites
 * the table from the options.
 */
class JobOptionsDocTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");

    @Test
    void theDocumentedTableIsGeneratedFromTheOptions() throws Exception {
        List<String> doc = Files.readAllLines(DOC);
        int first = -1;
        int end = -1;
        for (int i = 0; i < doc.size(); i++) {
            if (doc.get(i).equals("| key | default | meaning |")) {
                first = i + 2; // past the header's rule
            } else if (first >= 0 && end < 0 && i >= first && !doc.get(i).startsWith("| ")) {
                end = i;
            }
        }
        assertTrue(first > 0 && end > first, "docs/configuration.md has no settings table");
        List<String> rendered = JobOptions.ALL.stream().map(JobOptionsDocTest::row).collect(Collectors.toList());
        if (Boolean.getBoolean("walshadow.docs.write")) {
            List<String> out = new ArrayList<>(doc.subList(0, first));
            out.addAll(rendered);
            out.addAll(doc.subList(end, doc.size()));
            Files.write(DOC, out);
            return;
        }
        assertEquals(String.join("\n", rendered), String.join("\n", doc.subList(first, end)),
                "docs/configuration.md's table differs from JobOptions (rewrite it with -Dwalshadow.docs.write=true)");
    }

    @Test
    void everyOptionIsReadAndEveryKeyTheJobReadsIsAnOption() {
        assertEquals(JobOptions.ALL.size(), JobConfig.KEYS.size(), "keys declared twice?");
        for (ConfigOption<?> o : JobOptions.ALL) {
            assertTrue(JobConfig.KEYS.contains(o.key()), o.key());
            assertTrue(o.hasDefaultValue() != JobOptions.SHOWN_DEFAULTS.containsKey(o),
                    o.key() + ": a default, or what its absence means, not both");
            assertTrue(!text(o).isBlank(), o.key() + " has no meaning");
        }
    }

    static String row(ConfigOption<?> o) {
        return "| `" + o.key() + "` | " + shownDefault(o) + " | " + text(o) + " |";
    }

    static String shownDefault(ConfigOption<?> o) {
        if (!o.hasDefaultValue()) {
            return JobOptions.SHOWN_DEFAULTS.get(o);
        }
        Object v = o.defaultValue();
        if (v instanceof Number) {
            return v.toString();
        }
        if (v instanceof Duration d) {
            long s = d.toSeconds();
            if (d.toMillis() % 1000 != 0) {
                return "`" + d.toMillis() + "ms`";
            }
            return "`" + (s >= 120 && s % 60 == 0 ? s / 60 + "m" : s + "s") + "`";
        }
        return "`" + v + "`";
    }

    static String text(ConfigOption<?> o) {
        return o.description().getBlocks().stream().map(b -> ((TextElement) b).getFormat())
                .collect(Collectors.joining());
    }
}
