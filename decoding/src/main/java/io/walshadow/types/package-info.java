/**
 * Values from PostgreSQL's on-disk datum format (heap tuple attributes) to Java values and to PostgreSQL's text
 * output. Entry point: {@link io.walshadow.types.ValueDecoder}; type metadata from any
 * {@link io.walshadow.catalog.TypeCatalog}: the catalog shadow's {@link io.walshadow.catalog.shadow.ShadowTypes}, or
 * a {@link io.walshadow.types.MapTypeCatalog} (the operators' {@code io.walshadow.pg.TypeCatalogLoader} reads one
 * from the live catalog).
 *
 * <p>Java value per type (domains decode as their base type; {@code toText} prints the type's output function,
 * as COPY, psql, array_out and record_out do, under DateStyle ISO, TimeZone UTC, IntervalStyle postgres,
 * extra_float_digits 1, bytea_output hex, lc_monetary C):
 * <table>
 * <tr><th>PostgreSQL</th><th>Java</th><th>Notes</th></tr>
 * <tr><td>bool</td><td>Boolean</td><td>text t / f</td></tr>
 * <tr><td>int2, int4, int8</td><td>Short, Integer, Long</td><td></td></tr>
 * <tr><td>oid, xid, cid</td><td>Long</td><td>unsigned 32-bit</td></tr>
 * <tr><td>xid8</td><td>Long</td><td>unsigned 64-bit (printed unsigned)</td></tr>
 * <tr><td>float4, float8</td><td>Float, Double</td><td>text: {@link io.walshadow.types.FloatText}</td></tr>
 * <tr><td>numeric</td><td>{@link io.walshadow.types.PgNumeric}</td><td>BigDecimal with scale = dscale, or NaN,
 *     Infinity, -Infinity</td></tr>
 * <tr><td>money</td><td>{@link io.walshadow.types.PgMoney}</td><td>int64 cents</td></tr>
 * <tr><td>text, varchar, bpchar, name, json, xml</td><td>String</td><td>bpchar keeps its padding</td></tr>
 * <tr><td>"char"</td><td>Byte</td><td>text: \ooo for bytes &ge; 0x80</td></tr>
 * <tr><td>bytea</td><td>byte[]</td><td></td></tr>
 * <tr><td>jsonb</td><td>{@link io.walshadow.types.PgJsonb}</td><td>canonical jsonb_out text</td></tr>
 * <tr><td>uuid</td><td>java.util.UUID</td><td></td></tr>
 * <tr><td>date</td><td>{@link io.walshadow.types.PgDate}</td><td>days since 2000-01-01, +-infinity</td></tr>
 * <tr><td>time</td><td>{@link io.walshadow.types.PgTime}</td><td>micros; 24:00:00 allowed</td></tr>
 * <tr><td>timetz</td><td>{@link io.walshadow.types.PgTimeTz}</td><td>micros + zone seconds west</td></tr>
 * <tr><td>timestamp, timestamptz</td><td>{@link io.walshadow.types.PgTimestamp}</td><td>micros since 2000-01-01
 *     (UTC), +-infinity, withTimeZone flag</td></tr>
 * <tr><td>interval</td><td>{@link io.walshadow.types.PgInterval}</td><td>months, days, micros</td></tr>
 * <tr><td>inet, cidr</td><td>{@link io.walshadow.types.PgInet}</td><td></td></tr>
 * <tr><td>macaddr, macaddr8</td><td>{@link io.walshadow.types.PgMacaddr}</td><td></td></tr>
 * <tr><td>bit, varbit</td><td>{@link io.walshadow.types.PgBitString}</td><td></td></tr>
 * <tr><td>tid</td><td>{@link io.walshadow.types.PgTid}</td><td></td></tr>
 * <tr><td>pg_lsn</td><td>Long</td><td>text X/X</td></tr>
 * <tr><td>regclass, regtype, regproc, ... (reg*)</td><td>Long</td><td>the oid, printed as a number: the name is the
 *     catalog's at read time, not the change's</td></tr>
 * <tr><td>tsquery</td><td>String</td><td>tsqueryout's text</td></tr>
 * <tr><td>aclitem</td><td>String</td><td>aclitemout's text with role oids where it prints role names</td></tr>
 * <tr><td>enum</td><td>String</td><td>the label</td></tr>
 * <tr><td>contrib citext, hstore, ltree, lquery, cube, seg ({@link io.walshadow.types.ExtensionTypes}: known by
 *     extension and type name)</td><td>String</td><td>their output functions' text; hstore's read back by {@link
 *     io.walshadow.types.PgHstore#parseOutput}</td></tr>
 * <tr><td>contrib isn: ean13, isbn13, ismn13, issn13, isbn, ismn, issn, upc</td><td>String</td><td>the digits
 *     without hyphens ({@link io.walshadow.types.IsnCodec}; short form for isbn, ismn, issn, upc), {@code !} kept
 *     where the output prints it: not the output function's text</td></tr>
 * <tr><td>PostGIS geometry, geography (extension postgis)</td><td>String</td><td>their output functions' text: the
 *     EWKB in upper-case hex, {@code upper(encode(ST_AsEWKB(v), 'hex'))} ({@code PostgisCodec})</td></tr>
 * <tr><td>arrays</td><td>{@link io.walshadow.types.PgArray}</td><td>dims, lower bounds, flat elements</td></tr>
 * <tr><td>ranges, multiranges (built-in or of one's own)</td><td>String</td><td>range_out / multirange_out
 *     text</td></tr>
 * <tr><td>composites</td><td>{@link io.walshadow.types.PgRecord}</td><td>live fields by name and type</td></tr>
 * <tr><td>external TOAST value (any varlena)</td><td>{@link io.walshadow.types.ToastPointer}</td><td>resolve, then
 *     decode {@link io.walshadow.types.ToastPointer#toVarlena}</td></tr>
 * </table>
 * Anything else (int2vector, oidvector, jsonpath, other extensions' base types) throws
 * {@link io.walshadow.types.UnsupportedTypeException}.
 */
package io.walshadow.types;
