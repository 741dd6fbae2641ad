package io.walshadow.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which relations of the configured database are replicated: include and exclude patterns on {@code schema.table}.
 *
 * <p>A pattern is {@code schema.table}, each part a glob: {@code *} matches any run of characters, {@code ?} one
 * character, {@code \} makes the next character literal (for names holding {@code . * ? \}). Names are matched
 * as PostgreSQL stores them (unquoted identifiers are lower case), case-sensitively. Examples: {@code public.*},
 * {@code sales.orders}, {@code *.audit_?}.
 *
 * <p>A relation is included when it matches at least one include pattern (an empty include list includes
 * everything) and no exclude pattern. Relations in system schemas ({@code pg_catalog}, {@code information_schema},
 * {@code pg_toast}, {@code pg_temp_*}, {@code pg_toast_temp_*}) are never included; a TOAST table is included
 * exactly when its owning table is (see {@link CatalogSource#load}).
 *
 * <p>Partitions: by default each is a table of its own, matched by its own name. With {@link #partitionRoots()} a
 * partition is included through its root (the topmost partitioned table above it): the root's name is matched, and
 * its partitions' rows replicate into the root's destination ({@link PartitionOf}). Legacy inheritance
 * ({@code INHERITS}) is never routed: each table is matched and replicated on its own.
 */
public final class CatalogFilter {
    private final List<String> includes;
    private final List<String> excludes;
    private final List<Pattern[]> includePatterns = new ArrayList<>();
    private final List<Pattern[]> excludePatterns = new ArrayList<>();

    private final boolean partitionRoots;

    private CatalogFilter(List<String> includes, List<String> excludes, boolean partitionRoots) {
        this.includes = List.copyOf(includes);
        this.excludes = List.copyOf(excludes);
        this.partitionRoots = partitionRoots;
        for (String p : this.includes) {
            includePatterns.add(compile(p));
        }
        for (String p : this.excludes) {
            excludePatterns.add(compile(p));
        }
    }

    public static CatalogFilter of(List<String> includes, List<String> excludes) {
        return new CatalogFilter(trimmed(includes), trimmed(excludes), false);
    }

    /** The same patterns, with partitions replicated through their roots or as tables of their own. */
    public CatalogFilter withPartitionRoots(boolean roots) {
        return new CatalogFilter(includes, excludes, roots);
    }

    /** Whether partitions are included through, and replicate into, their root. */
    public boolean partitionRoots() {
        return partitionRoots;
    }

    /** From comma-separated pattern lists (null or blank: none). */
    public static CatalogFilter parse(String includes, String excludes) {
        return of(split(includes), split(excludes));
    }

    /** Everything outside the system schemas. */
    public static CatalogFilter all() {
        return of(List.of(), List.of());
    }

    /** Whether the relation's table is included, by the name the descriptor has. */
    /** A partition whose rows go to its root ({@link #partitionRoots()}) is included by its root's name. */
    public boolean includes(RelationDescriptor d) {
        if (partitionRoots && d.partition() != null) {
            RelationDescriptor root = d.partition().root();
            return includes(root.schema(), root.name());
        }
        return includes(d.schema(), d.name());
    }

    public boolean includes(String schema, String table) {
        if (isSystemSchema(schema)) {
            return false;
        }
        boolean in = includePatterns.isEmpty();
        for (Pattern[] p : includePatterns) {
            if (matches(p, schema, table)) {
                in = true;
                break;
            }
        }
        if (!in) {
            return false;
        }
        for (Pattern[] p : excludePatterns) {
            if (matches(p, schema, table)) {
                return false;
            }
        }
        return true;
    }

    public static boolean isSystemSchema(String schema) {
        return schema.equals("pg_catalog") || schema.equals("information_schema") || schema.equals("pg_toast")
                || schema.startsWith("pg_temp_") || schema.startsWith("pg_toast_temp_");
    }

    public List<String> includePatterns() {
        return includes;
    }

    public List<String> excludePatterns() {
        return excludes;
    }

    /**
     * Canonical text of the filter. It is stored with the descriptor history, so that a restart with a different
     * filter is noticed (relations newly included have no history, and their earlier rows are not in the WAL).
     */
    public String spec() {
        return "include=" + String.join(",", includes) + ";exclude=" + String.join(",", excludes)
                + (partitionRoots ? PARTITION_ROOTS : "");
    }

    /** The spec's suffix for {@link #partitionRoots()}; absent in specs of earlier builds (tables of their own). */
    private static final String PARTITION_ROOTS = ";partitions=root";

    /**
     * The filter a {@link #spec()} was made from. (A pattern holding the text {@code ;exclude=} itself cannot be told
     * apart from the separator; such names are not supported.)
     */
    public static CatalogFilter fromSpec(String spec) {
        String sep = ";exclude=";
        int cut = spec.indexOf(sep);
        if (!spec.startsWith("include=") || cut < 0) {
            throw new IllegalArgumentException("not a catalog filter spec: '" + spec + "'");
        }
        boolean roots = spec.endsWith(PARTITION_ROOTS);
        if (roots) {
            spec = spec.substring(0, spec.length() - PARTITION_ROOTS.length());
        }
        String inc = spec.substring("include=".length(), cut);
        String exc = spec.substring(cut + sep.length());
        return parse(inc.isEmpty() ? null : inc, exc.isEmpty() ? null : exc).withPartitionRoots(roots);
    }

    @Override
    public String toString() {
        return spec();
    }

    private static boolean matches(Pattern[] p, String schema, String table) {
        return p[0].matcher(schema).matches() && p[1].matcher(table).matches();
    }

    private static List<String> trimmed(List<String> in) {
        List<String> out = new ArrayList<>();
        if (in != null) {
            for (String s : in) {
                if (s != null && !s.isBlank()) {
                    out.add(s.strip());
                }
            }
        }
        return out;
    }

    private static List<String> split(String csv) {
        List<String> out = new ArrayList<>();
        if (csv == null) {
            return out;
        }
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < csv.length(); i++) {
            char ch = csv.charAt(i);
            if (ch == '\\' && i + 1 < csv.length()) {
                cur.append(ch).append(csv.charAt(++i));
            } else if (ch == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString());
        return out;
    }

    /** Two anchored regexes, schema and table. */
    private static Pattern[] compile(String pattern) {
        StringBuilder schema = new StringBuilder();
        StringBuilder table = new StringBuilder();
        StringBuilder cur = schema;
        boolean sawDot = false;
        for (int i = 0; i < pattern.length(); i++) {
            char ch = pattern.charAt(i);
            if (ch == '\\') {
                if (i + 1 == pattern.length()) {
                    throw new IllegalArgumentException("catalog filter pattern '" + pattern + "' ends with '\\'");
                }
                cur.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (ch == '.') {
                if (sawDot) {
                    throw new IllegalArgumentException("catalog filter pattern '" + pattern
                            + "' has more than one unescaped '.'; use schema.table (escape a literal dot as \\.)");
                }
                sawDot = true;
                cur = table;
            } else if (ch == '*') {
                cur.append(".*");
            } else if (ch == '?') {
                cur.append('.');
            } else {
                cur.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        if (!sawDot || schema.length() == 0 || table.length() == 0) {
            throw new IllegalArgumentException("catalog filter pattern '" + pattern
                    + "' is not of the form schema.table (e.g. public.*, sales.orders)");
        }
        return new Pattern[] {Pattern.compile(schema.toString(), Pattern.DOTALL),
            Pattern.compile(table.toString(), Pattern.DOTALL)};
    }
}
