package io.walshadow.types;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;

/**
 * What to do with a column whose type has no decoder ({@code types.undecodable}, {@code types.undecodable.columns}):
 * stop the job naming it ({@link Action#FAIL}, the default), leave the column out of the destination
 * ({@link Action#SKIP}), or write its on-disk bytes as {@code \x} hex text ({@link Action#RAW}).
 *
 * <p>It acts on descriptors, not values: {@link #apply} marks a skipped column dropped (the deformer still steps over
 * its bytes, nothing decodes it, the destination has no such column) and gives a raw column a stand-in type
 * ({@link Oids#RAW_VARLENA}, {@link Oids#RAW_FIXED}) that decodes to hex, TOAST values included. Every stage that
 * sees a descriptor sees the same shape. A column that is part of the row identity is never left out: under
 * {@code skip} it is written raw (equal bytes, equal key).
 */
public final class UndecodableColumns implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The default: a column without a decoder stops the job. */
    public static final UndecodableColumns FAIL = new UndecodableColumns(Action.FAIL, List.of());

    public enum Action {
        FAIL, SKIP, RAW;

        static Action parse(String s, String option) {
            return switch (s.strip()) {
                case "fail" -> FAIL;
                case "skip" -> SKIP;
                case "raw" -> RAW;
                default -> throw new IllegalArgumentException("setting --" + option + ": the action must be fail,"
                        + " skip or raw, got '" + s.strip() + "'");
            };
        }

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One {@code schema.table.column=action} entry, each part a glob. */
    private record Rule(String text, Pattern schema, Pattern table, Pattern column, Action action)
            implements Serializable {
        boolean matches(String s, String t, String c) {
            return schema.matcher(s).matches() && table.matcher(t).matches() && column.matcher(c).matches();
        }
    }

    private final Action defaultAction;
    private final List<Rule> rules;
    private final boolean failsAll;

    private UndecodableColumns(Action defaultAction, List<Rule> rules) {
        this.defaultAction = defaultAction;
        this.rules = List.copyOf(rules);
        this.failsAll = defaultAction == Action.FAIL && rules.stream().allMatch(r -> r.action() == Action.FAIL);
    }

    /**
     * @param defaultAction {@code fail}, {@code skip} or {@code raw} (option {@code types.undecodable})
     * @param columns comma-separated {@code schema.table.column=action} entries, globs ({@code *}, {@code ?}) in each
     *     part, {@code \} escaping a dot, comma, equals sign or star in a name; the first that matches wins over the
     *     default (option {@code types.undecodable.columns}); null or blank: none
     */
    public static UndecodableColumns parse(String defaultAction, String columns) {
        Action dflt = Action.parse(defaultAction == null ? "fail" : defaultAction, "types.undecodable");
        List<Rule> rules = new ArrayList<>();
        if (columns != null && !columns.isBlank()) {
            for (String entry : split(columns, ',')) {
                if (entry.isBlank()) {
                    continue;
                }
                List<String> kv = split(entry, '=');
                if (kv.size() != 2) {
                    throw new IllegalArgumentException("setting --types.undecodable.columns: '" + entry.strip()
                            + "' is not schema.table.column=action");
                }
                List<String> parts = split(kv.get(0).strip(), '.');
                if (parts.size() != 3 || parts.stream().anyMatch(String::isEmpty)) {
                    throw new IllegalArgumentException("setting --types.undecodable.columns: '" + kv.get(0).strip()
                            + "' is not schema.table.column (escape a dot in a name as \\.)");
                }
                rules.add(new Rule(entry.strip(), glob(parts.get(0)), glob(parts.get(1)), glob(parts.get(2)),
                        Action.parse(kv.get(1), "types.undecodable.columns")));
            }
        }
        return new UndecodableColumns(dflt, rules);
    }

    /** Whether every column without a decoder fails: {@link #apply} then never changes a descriptor. */
    public boolean failsAll() {
        return failsAll;
    }

    /** The action for one column (of a type without a decoder). */
    public Action actionFor(String schema, String table, String column) {
        for (Rule r : rules) {
            if (r.matches(schema, table, column)) {
                return r.action();
            }
        }
        return defaultAction;
    }

    /**
     * {@code d} with each live column whose type {@code decodable} rejects skipped or made raw as its action says;
     * {@code d} itself when nothing changes (always so under {@link #failsAll}). Applying it twice changes nothing
     * more: the raw stand-ins are decodable.
     */
    public RelationDescriptor apply(RelationDescriptor d, IntPredicate decodable) {
        if (d == null || failsAll()) {
            return d;
        }
        List<Column> out = null;
        for (int i = 0; i < d.columns().size(); i++) {
            Column c = d.columns().get(i);
            if (c.dropped() || decodable.test(c.typeOid())) {
                continue;
            }
            Action a = actionFor(d.schema(), d.name(), c.name());
            if (a == Action.SKIP && d.identityAttnums().contains(c.attnum())) {
                a = Action.RAW; // the row's key cannot be left out
            }
            if (a == Action.FAIL) {
                continue;
            }
            if (out == null) {
                out = new ArrayList<>(d.columns());
            }
            out.set(i, a == Action.SKIP ? skipped(c) : raw(c));
        }
        return out == null ? d : new RelationDescriptor(d.relOid(), d.locator(), d.schema(), d.name(), d.relkind(),
                d.relpersistence(), d.replicaIdentity(), d.toastRelOid(), List.copyOf(out), d.identityAttnums());
    }

    /**
     * A column left out: dropped, as far as every stage is concerned, but with its type kept (a column PostgreSQL
     * dropped has type 0), which is how {@link #isSkipped} tells the two apart.
     */
    private static Column skipped(Column c) {
        return new Column(c.attnum(), c.name(), c.typeOid(), c.typmod(), c.attlen(), c.attalign(), c.attbyval(),
                c.attstorage(), true, c.notNull(), c.missingValue());
    }

    /** Nullable: the initial snapshot reads text and cannot give the bytes, so its rows hold NULL there. */
    private static Column raw(Column c) {
        return new Column(c.attnum(), c.name(), c.attlen() == -1 ? Oids.RAW_VARLENA : Oids.RAW_FIXED, -1, c.attlen(),
                c.attalign(), c.attbyval(), c.attstorage(), false, false, c.missingValue());
    }

    /** A column {@link #apply} left out (not one PostgreSQL dropped). */
    public static boolean isSkipped(Column c) {
        return c.dropped() && c.typeOid() != 0;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(defaultAction.toString());
        for (Rule r : rules) {
            s.append(", ").append(r.text());
        }
        return s.toString();
    }

    /** Splits at unescaped {@code sep}, keeping escapes for {@link #glob}. */
    private static List<String> split(String s, char sep) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\\' && i + 1 < s.length()) {
                cur.append(ch).append(s.charAt(++i));
            } else if (ch == sep) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString());
        return out;
    }

    private static Pattern glob(String part) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < part.length(); i++) {
            char ch = part.charAt(i);
            if (ch == '\\' && i + 1 < part.length()) {
                re.append(Pattern.quote(String.valueOf(part.charAt(++i))));
            } else if (ch == '*') {
                re.append(".*");
            } else if (ch == '?') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }
}
