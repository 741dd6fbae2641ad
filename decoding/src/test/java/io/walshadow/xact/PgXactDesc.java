package io.walshadow.xact;

import io.walshadow.wal.RelFileLocator;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Test-only: renders parsed transaction records the way PostgreSQL 15's pg_waldump prints them after
 * {@code desc: } ({@code xact_identify} + " " + {@code xact_desc}, xactdesc.c / standbydesc.c), so that our parse
 * can be compared with PostgreSQL's own for the same bytes. Timestamps as pg_waldump's {@code timestamptz_to_str}
 * (src/bin/pg_waldump/compat.c) prints them with TZ=UTC.
 */
final class PgXactDesc {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
    private static final int GLOBALTABLESPACE_OID = 1664;
    private static final int DEFAULTTABLESPACE_OID = 1663;

    /** {@code TABLESPACE_VERSION_DIRECTORY}: "PG_15_" + catalog version. */
    private final String tablespaceVersionDir;

    PgXactDesc(String catalogVersionNo) {
        this.tablespaceVersionDir = "PG_15_" + catalogVersionNo;
    }

    /** The whole text pg_waldump prints after "desc: ". */
    String describe(XactRecord r) {
        StringBuilder sb = new StringBuilder(r.opName()).append(' ');
        if (r instanceof XactCommit c) {
            commit(sb, c);
        } else if (r instanceof XactAbort a) {
            abort(sb, a);
        } else if (r instanceof XactPrepare p) {
            prepare(sb, p);
        } else if (r instanceof XactAssignment a) {
            sb.append("xtop ").append(u(a.xtop())).append(": subxacts:");
            for (int i = 0; i < a.subxids().size(); i++) {
                sb.append(' ').append(u(a.subxids().getInt(i)));
            }
        } else if (r instanceof XactInvalidations i) {
            invalidations(sb, i.invals(), 0, 0, false);
        } else {
            throw new IllegalArgumentException(r.toString());
        }
        return sb.toString();
    }

    private void commit(StringBuilder sb, XactCommit c) {
        if (c.twophaseXid() != 0) {
            sb.append(u(c.twophaseXid())).append(": ");
        }
        sb.append(timestamptzToStr(c.xactTime()));
        relations(sb, "rels", c.rels());
        subxacts(sb, c.subxids());
        stats(sb, "", c.droppedStats());
        DbInfo db = c.dbInfo();
        invalidations(sb, c.invals(), db == null ? 0 : db.dbId(), db == null ? 0 : db.tsId(),
                c.relcacheInitFileInval());
        if (c.applyFeedback()) {
            sb.append("; apply_feedback");
        }
        if (c.forceSyncCommit()) {
            sb.append("; sync");
        }
        if (c.origin() != null) {
            origin(sb, c.origin());
        }
    }

    private void abort(StringBuilder sb, XactAbort a) {
        if (a.twophaseXid() != 0) {
            sb.append(u(a.twophaseXid())).append(": ");
        }
        sb.append(timestamptzToStr(a.xactTime()));
        relations(sb, "rels", a.rels());
        subxacts(sb, a.subxids());
        if (a.origin() != null) {
            origin(sb, a.origin());
        }
        stats(sb, "", a.droppedStats());
    }

    private void prepare(StringBuilder sb, XactPrepare p) {
        sb.append("gid ").append(p.gid()).append(": ").append(timestamptzToStr(p.preparedAt()));
        relations(sb, "rels(commit)", p.commitRels());
        relations(sb, "rels(abort)", p.abortRels());
        stats(sb, "commit ", p.commitStats());
        stats(sb, "abort ", p.abortStats());
        subxacts(sb, p.subxids());
        // ParsePrepareRecord leaves tsId 0
        invalidations(sb, p.invals(), p.dbId(), 0, p.initFileInval());
        if (p.origin() != null) {
            origin(sb, p.origin());
        }
    }

    private static void origin(StringBuilder sb, XactOrigin o) {
        sb.append("; origin: node ").append(o.nodeId()).append(", lsn ").append(lsn(o.originLsn())).append(", at ")
                .append(timestamptzToStr(o.originTimestamp()));
    }

    private void relations(StringBuilder sb, String label, List<RelFileLocator> rels) {
        if (!rels.isEmpty()) {
            sb.append("; ").append(label).append(':');
            for (RelFileLocator r : rels) {
                sb.append(' ').append(relpathperm(r));
            }
        }
    }

    private static void subxacts(StringBuilder sb, XidList subxids) {
        if (!subxids.isEmpty()) {
            sb.append("; subxacts:");
            for (int i = 0; i < subxids.size(); i++) {
                sb.append(' ').append(u(subxids.getInt(i)));
            }
        }
    }

    private static void stats(StringBuilder sb, String label, List<DroppedStatsItem> items) {
        if (!items.isEmpty()) {
            sb.append("; ").append(label).append("dropped stats:");
            for (DroppedStatsItem s : items) {
                sb.append(' ').append(s.kind()).append('/').append(u(s.dbOid())).append('/').append(u(s.objOid()));
            }
        }
    }

    /** standby_desc_invalidations. */
    private static void invalidations(StringBuilder sb, InvalidationMessages msgs, int dbId, int tsId,
                                      boolean relcacheInitFileInval) {
        if (msgs.isEmpty()) {
            return;
        }
        if (relcacheInitFileInval) {
            sb.append("; relcache init file inval dbid ").append(u(dbId)).append(" tsid ").append(u(tsId));
        }
        sb.append("; inval msgs:");
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Catcache c) {
                sb.append(" catcache ").append(c.cacheId());
            } else if (m instanceof InvalidationMessage.Catalog c) {
                sb.append(" catalog ").append(u(c.catId()));
            } else if (m instanceof InvalidationMessage.Relcache c) {
                sb.append(" relcache ").append(u(c.relId()));
            } else if (m instanceof InvalidationMessage.Smgr) {
                sb.append(" smgr");
            } else if (m instanceof InvalidationMessage.Relmap rm) {
                sb.append(" relmap db ").append(u(rm.dbId()));
            } else if (m instanceof InvalidationMessage.Snapshot sn) {
                sb.append(" snapshot ").append(u(sn.relId()));
            }
        }
    }

    /** relpathperm(rlocator, MAIN_FORKNUM) (common/relpath.c GetRelationPath, backend InvalidBackendId). */
    String relpathperm(RelFileLocator r) {
        if (r.spcOid() == GLOBALTABLESPACE_OID) {
            return "global/" + u(r.relNumber());
        }
        if (r.spcOid() == DEFAULTTABLESPACE_OID) {
            return "base/" + u(r.dbOid()) + "/" + u(r.relNumber());
        }
        return "pg_tblspc/" + u(r.spcOid()) + "/" + tablespaceVersionDir + "/" + u(r.dbOid()) + "/"
                + u(r.relNumber());
    }

    /** pg_waldump's timestamptz_to_str under TZ=UTC: C truncating division, "%06d" of the C remainder. */
    static String timestamptzToStr(long t) {
        long secs = t / 1_000_000L + PgTimestamps.POSTGRES_EPOCH_UNIX_SECONDS;
        int usecs = (int) (t % 1_000_000L);
        return LocalDateTime.ofEpochSecond(secs, 0, ZoneOffset.UTC).format(TS) + String.format(".%06d UTC", usecs);
    }

    /** LSN_FORMAT_ARGS with "%X/%X" (no zero padding). */
    static String lsn(long lsn) {
        return String.format("%X/%X", lsn >>> 32, lsn & 0xFFFFFFFFL);
    }

    private static String u(int v) {
        return Integer.toUnsignedString(v);
    }
}
