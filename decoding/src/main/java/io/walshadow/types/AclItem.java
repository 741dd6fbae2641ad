package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * {@code aclitem} ({@code utils/acl.h}, {@code aclitemout} in {@code utils/adt/acl.c}), decoded to
 * {@code grantee=privs/grantor}: the privilege letters in {@code ACL_ALL_RIGHTS_STR} order, each followed by
 * {@code *} when granted with grant option, an empty grantee for PUBLIC (oid 0). Where aclitemout prints a role's
 * name this prints the role's oid number, which is what aclitemout itself prints for a role that no longer exists:
 * role names are not in the WAL, and the name as of the change may differ from the catalog's when read.
 *
 * <p>PostgreSQL 15 layout (12 bytes, int-aligned): {@code Oid ai_grantee}, {@code Oid ai_grantor},
 * {@code uint32 ai_privs} with the privileges in the low 16 bits and their grant options in the high 16. From 16 on
 * AclMode is uint64 (16 bytes, double-aligned, grant options in the high 32 bits), and 17 adds {@code m} (MAINTAIN).
 */
final class AclItem {
    static final int SIZE = 12;
    /** ACL_ALL_RIGHTS_STR of PostgreSQL 15: privilege bit i prints as its i-th letter (N_ACL_RIGHTS = 14). */
    private static final String RIGHTS = "arwdDxtXUCTcsA";

    private AclItem() {}

    static String text(byte[] b, int o, int l) {
        int grantee = Bytes.int32(b, o);
        int grantor = Bytes.int32(b, o + 4);
        int privs = Bytes.int32(b, o + 8);
        int rights = privs & 0xFFFF;
        int options = privs >>> 16;
        if (((rights | options) >>> RIGHTS.length()) != 0) {
            throw new MalformedDatumException("aclitem privilege bits 0x" + Integer.toHexString(privs)
                    + " beyond PostgreSQL 15's " + RIGHTS.length() + " privileges");
        }
        StringBuilder out = new StringBuilder();
        if (grantee != 0) {
            out.append(Integer.toUnsignedString(grantee));
        }
        out.append('=');
        for (int i = 0; i < RIGHTS.length(); i++) {
            if ((rights & (1 << i)) != 0) {
                out.append(RIGHTS.charAt(i));
            }
            if ((options & (1 << i)) != 0) {
                out.append('*');
            }
        }
        return out.append('/').append(Integer.toUnsignedString(grantor)).toString();
    }
}
