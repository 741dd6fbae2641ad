package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * {@code aclitem} ({@code utils/acl.h}, {@code aclitemout} in {@code utils/adt/acl.c}), decoded to
 * {@code grantee=privs/grantor}: the privilege letters in {@code ACL_ALL_RIGHTS_STR} order, each followed by
 * {@code *} when granted with grant option, an empty grantee for PUBLIC (oid 0). Where aclitemout prints a role's
 * name this prints the role's oid number, which is what aclitemout itself prints for a role that no longer exists:
 * role names are not in the WAL, and the name as of the change may differ from the catalog's when read.
 *
 * <p>Two layouts, told apart by the datum's length (pg_type.typlen of the server the tuple is from):
 * PostgreSQL 14 and 15 (12 bytes, int-aligned): {@code Oid ai_grantee}, {@code Oid ai_grantor},
 * {@code uint32 ai_privs} with the privileges in the low 16 bits and their grant options in the high 16. From 16
 * on AclMode is uint64 (16 bytes, double-aligned; REL_16_STABLE acl.h: privileges in the low 32 bits, grant options
 * in the high 32), and 17 adds {@code m} (ACL_MAINTAIN, bit 14: N_ACL_RIGHTS 15, ACL_ALL_RIGHTS_STR
 * "arwdDxtXUCTcsAm"). 16 never sets bit 14, so one letter table serves 16..18.
 */
final class AclItem {
    /** typlen on 14 and 15. */
    static final int SIZE = 12;
    /** typlen from 16 on (typalign 'd'). */
    static final int SIZE_WIDE = 16;
    /** ACL_ALL_RIGHTS_STR of PostgreSQL 15: privilege bit i prints as its i-th letter (N_ACL_RIGHTS = 14). */
    private static final String RIGHTS = "arwdDxtXUCTcsA";
    /** ACL_ALL_RIGHTS_STR of PostgreSQL 17 and 18 (16: the same without m). */
    private static final String RIGHTS_WIDE = "arwdDxtXUCTcsAm";

    private AclItem() {}

    static String text(byte[] b, int o, int l) {
        int grantee = Bytes.int32(b, o);
        int grantor = Bytes.int32(b, o + 4);
        String letters;
        long rights;
        long options;
        if (l == SIZE) {
            int privs = Bytes.int32(b, o + 8);
            letters = RIGHTS;
            rights = privs & 0xFFFF;
            options = privs >>> 16;
        } else if (l == SIZE_WIDE) {
            long privs = Bytes.int64(b, o + 8);
            letters = RIGHTS_WIDE;
            rights = privs & 0xFFFFFFFFL;
            options = privs >>> 32;
        } else {
            throw new MalformedDatumException("aclitem of " + l + " bytes (" + SIZE + " on PostgreSQL 14/15, "
                    + SIZE_WIDE + " from 16 on)");
        }
        if (((rights | options) >>> letters.length()) != 0) {
            throw new MalformedDatumException("aclitem privilege bits 0x" + Long.toHexString(rights) + "/0x"
                    + Long.toHexString(options) + " beyond the " + letters.length() + " privileges of a " + l
                    + "-byte aclitem");
        }
        StringBuilder out = new StringBuilder();
        if (grantee != 0) {
            out.append(Integer.toUnsignedString(grantee));
        }
        out.append('=');
        for (int i = 0; i < letters.length(); i++) {
            if ((rights & (1L << i)) != 0) {
                out.append(letters.charAt(i));
            }
            if ((options & (1L << i)) != 0) {
                out.append('*');
            }
        }
        return out.append('/').append(Integer.toUnsignedString(grantor)).toString();
    }
}
