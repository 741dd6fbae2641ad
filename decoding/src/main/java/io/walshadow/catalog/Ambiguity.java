package io.walshadow.catalog;

import java.util.List;

/**
 * Why a relation's descriptor is unknown from {@code since} on: when the tracker refreshed it at that boundary,
 * the live catalog already held changes of transactions the stream had not reached, and the shape they overwrote
 * cannot be recovered from SQL. Lasts until those commits are reached (or the horizon passes them), or, with no
 * xids to wait for, until the next refresh of the relation (its next invalidation, or the drop of its storage).
 *
 * <p>A record written by one of the awaited transactions themselves (its xid, or its top-level xid, is in
 * {@link #awaitedXids()}) is not lost: that transaction's commit refreshes the relation, so the record can be
 * deferred and resolved at that commit like any record of a relfilenode first seen in its creating transaction.
 *
 * @param qualifiedName schema.name as the live catalog showed it (names are informational here)
 * @param since LSN of the boundary the ambiguity starts at
 * @param awaitedXids xids of the catalog rows the stream has not reached (unsigned), possibly empty
 * @param reason what could not be established
 */
public record Ambiguity(int relOid, String qualifiedName, long since, List<Integer> awaitedXids, String reason) {
    public Ambiguity {
        awaitedXids = List.copyOf(awaitedXids);
    }

    public String xidsText() {
        StringBuilder sb = new StringBuilder();
        for (int x : awaitedXids) {
            sb.append(sb.length() == 0 ? "" : ", ").append(Integer.toUnsignedString(x));
        }
        return sb.length() == 0 ? "unknown" : sb.toString();
    }
}
