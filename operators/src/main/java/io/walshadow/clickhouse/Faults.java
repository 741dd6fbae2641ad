package io.walshadow.clickhouse;

/**
 * Named points in the sink where a test can inject a failure (the exactly-once tests fail the job there). A no-op
 * unless a hook is installed; production code never installs one.
 */
public final class Faults {
    /** Decides, at each point passed, whether to throw. */
    public interface Hook {
        void at(String point);
    }

    private static volatile Hook hook;

    private Faults() {}

    public static void install(Hook h) {
        hook = h;
    }

    public static void at(String point) {
        Hook h = hook;
        if (h != null) {
            h.at(point);
        }
    }
}
