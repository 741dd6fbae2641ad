package io.walshadow.sink;

/**
 * A table the sink stopped writing ({@code clickhouse.unwritable quarantine}) because one of its values could not be
 * written: its destination holds what came before {@code lsn}, its later changes are skipped (and counted) until the
 * table is excluded at a restore and included again, which copies it anew.
 *
 * @param relOid the relation
 * @param schema its schema, as the table filter matches it
 * @param name its name, as the table filter matches it
 * @param lsn the change that could not be written
 * @param reason why (the conversion error, naming the column and value)
 */
public record QuarantinedTable(int relOid, String schema, String name, long lsn, String reason) {
    public String qualifiedName() {
        return schema + "." + name;
    }
}
