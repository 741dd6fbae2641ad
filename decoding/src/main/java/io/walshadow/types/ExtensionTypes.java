package io.walshadow.types;

import java.nio.charset.Charset;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * The types of contrib extensions the decoder reads, known by (extension, type name): their oids differ in every
 * database. A type is recognised as {@code hstore} of extension {@code hstore} when it is named {@code hstore} and
 * lives in the namespace of the installed extension {@code hstore} ({@code pg_extension.extnamespace}); both type
 * catalogs (the WAL-fed shadow and the SQL loader) fill {@link io.walshadow.catalog.PgType#extension} with {@link
 * #owner}. A user type of the same name in another schema stays unknown.
 */
public final class ExtensionTypes {
    private static final Map<String, Set<String>> TYPES = Map.of(
            "citext", Set.of("citext"),
            "isn", Set.of("ean13", "isbn13", "ismn13", "issn13", "isbn", "ismn", "issn", "upc"),
            "postgis", Set.of("geometry", "geography"),
            "hstore", Set.of("hstore"),
            "ltree", Set.of("ltree", "lquery"),
            "cube", Set.of("cube"),
            "seg", Set.of("seg"));

    private ExtensionTypes() {}

    /** Whether the decoder has a codec for type {@code typname} of extension {@code extension}. */
    public static boolean known(String extension, String typname) {
        Set<String> t = extension == null ? null : TYPES.get(extension);
        return t != null && t.contains(typname);
    }

    /** Whether some extension has a type of this name the decoder knows. */
    public static boolean knownName(String typname) {
        for (Set<String> t : TYPES.values()) {
            if (t.contains(typname)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The extension a type named {@code typname} belongs to, given the names of the extensions installed in its
     * namespace; null when none of them has a type of that name the decoder knows.
     */
    public static String owner(String typname, Collection<String> extensionsInNamespace) {
        for (String e : extensionsInNamespace) {
            if (known(e, typname)) {
                return e;
            }
        }
        return null;
    }

    /**
     * The array delimiter (typdelim) of a type of {@code extension}: PostGIS's geometry and geography print their
     * arrays with ':' ({@code CREATE TYPE geometry (... delimiter = ':')}, postgis/postgis.sql.in, geography.sql.in).
     */
    static char typdelim(String extension) {
        return "postgis".equals(extension) ? ':' : ',';
    }

    /** The codec of a {@link #known} type; {@code text} is the server's text codec (citext is text on disk). */
    static TypeCodec codec(String extension, String typname, Charset cs, TypeCodec text) {
        return switch (extension + "." + typname) {
            case "citext.citext" -> text;
            // isn: the digits without hyphens (IsnCodec); ean13_out's types print 13, isn_out's the short form
            case "isn.ean13", "isn.isbn13", "isn.ismn13", "isn.issn13" -> IsnCodec.LONG;
            case "isn.isbn", "isn.ismn", "isn.issn", "isn.upc" -> IsnCodec.SHORT;
            case "postgis.geometry" -> PostgisCodec.codec("geometry");
            case "postgis.geography" -> PostgisCodec.codec("geography");
            case "hstore.hstore" -> HstoreCodec.codec(cs);
            case "ltree.ltree" -> LtreeCodec.ltree(cs);
            case "ltree.lquery" -> LtreeCodec.lquery(cs);
            case "cube.cube" -> CubeCodec.CODEC;
            case "seg.seg" -> SegCodec.CODEC;
            default -> null;
        };
    }
}
