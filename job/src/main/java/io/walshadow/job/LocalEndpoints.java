package io.walshadow.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;

/**
 * The embedded MiniCluster of a job run from a plain JVM: what a person watching it can open (Flink's web dashboard
 * and a Prometheus endpoint with every metric of the job) and where it resumes from. A job submitted to a cluster
 * has the cluster's own (its {@code rest.port}, its reporters, {@code flink run -s}).
 *
 * @param webPort the dashboard's port on localhost, 0 for none
 * @param metricsPort the Prometheus endpoint's port on localhost, 0 for none
 * @param restoreFrom a savepoint or retained checkpoint the embedded run restores from (null: a fresh start)
 */
public record LocalEndpoints(int webPort, int metricsPort, String restoreFrom) {
    public LocalEndpoints(int webPort, int metricsPort) {
        this(webPort, metricsPort, null);
    }

    /** Reporter name in the Flink configuration ({@code metrics.reporter.<name>.*}). */
    static final String REPORTER = "prom";

    /** Adds the endpoints to the MiniCluster's configuration (before the environment is created from it). */
    public void applyTo(Configuration flink) {
        if (webPort > 0) {
            // the MiniCluster picks a random port unless told: a fixed one is what a printed URL needs
            flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
            flink.set(RestOptions.BIND_PORT, String.valueOf(webPort));
            flink.set(RestOptions.PORT, webPort);
        }
        if (metricsPort > 0) {
            flink.setString("metrics.reporter." + REPORTER + ".factory.class",
                    "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            flink.setString("metrics.reporter." + REPORTER + ".port", String.valueOf(metricsPort));
        }
        if (restoreFrom != null) {
            flink.set(org.apache.flink.configuration.StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        }
    }

    /**
     * The savepoint or checkpoint directory {@code setting} names (a {@code file://} URI, a directory or its
     * {@code _metadata}), refused when it holds no completed one.
     */
    static String restorePath(String setting) {
        java.nio.file.Path path = java.nio.file.Path.of(setting.replaceFirst("^file://", ""));
        if (path.getFileName() != null && path.getFileName().toString().equals("_metadata")) {
            path = path.getParent();
        }
        if (!java.nio.file.Files.exists(path.resolve("_metadata"))) {
            throw new IllegalArgumentException("setting --" + JobOptions.LOCAL_RESTORE_FROM.key() + " '" + setting
                    + "': no savepoint or completed checkpoint there (no _metadata)");
        }
        return path.toString();
    }

    /** The line the local run prints, naming what it serves. */
    public String describe() {
        return (webPort > 0 ? "dashboard http://localhost:" + webPort + "/" : "no dashboard (local.web.port=0)") + ", "
                + (metricsPort > 0 ? "Prometheus metrics http://localhost:" + metricsPort + "/metrics"
                        : "no Prometheus endpoint (local.metrics.port=0)")
                + (restoreFrom == null ? "" : "; restoring from " + restoreFrom);
    }
}
