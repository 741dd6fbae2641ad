/**
 * Typed bodies of the records outside heap and transaction records that the pipeline reads, one class per record
 * type, each parsed from an {@link io.walshadow.wal.XLogRecord} with its length checked (PostgreSQL's
 * {@code standbydefs.h}, {@code pg_control.h}, {@code storage_xlog.h}): callers name fields, not byte offsets.
 */
package io.walshadow.wal.rmgr;
