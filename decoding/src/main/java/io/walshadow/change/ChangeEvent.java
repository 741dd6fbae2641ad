package io.walshadow.change;

/** What the decoder hands to the transaction buffer, in WAL order. */
public sealed interface ChangeEvent permits RowChange, TruncateChange, DeferredRecord, XactEvent {
    /** LSN of the record the event comes from. */
    long lsn();

    /** The xid the record carries (a subtransaction's own xid inside a savepoint), 0 for none. */
    int xid();
}
