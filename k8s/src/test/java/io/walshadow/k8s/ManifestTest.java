package io.walshadow.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.walshadow.job.JobConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.Test;

/**
 * The manifests in {@code k8s/}, read into the Flink Kubernetes operator's own model classes
 * ({@code flink-kubernetes-operator-api}) and fabric8's Kubernetes model, and checked where a mistake would lose
 * state or leak a secret: savepoint upgrades, RocksDB with incremental retained checkpoints on the mounted volume,
 * the entry class and a jar path the Dockerfile fills, arguments the job's own parser accepts and that hold no
 * password, the passwords read from files of the Secret (its keys, mounted read-only, mode at most 0440),
 * resources. And the security defaults, on the JobManager's and the TaskManagers' pods as the operator builds them:
 * the image's non-root flink user, a read-only root filesystem with a writable volume under every directory Flink
 * writes to, no privilege escalation or capabilities, the runtime's seccomp profile, ephemeral-storage requests and
 * limits, Kubernetes HA on the claim, secrets only through secretKeyRef or read-only mounts. Broken copies of the
 * manifest must each be caught.
 */
class ManifestTest {
    private static final Path DIR = Path.of(System.getProperty("walshadow.k8s.dir", ".")).toAbsolutePath();
    /** The flink user and group of Flink's images ({@code groupadd --gid 9999 flink; useradd --uid 9999}). */
    private static final long FLINK_UID = 9999;
    private static final String MAIN_CONTAINER = "flink-main-container";
    private static final String EPHEMERAL_STORAGE = "ephemeral-storage";
    /** The job's options naming a password file (it reads the file while parsing its arguments). */
    private static final String PG_PASSWORD_FILE = "--pg.password.file";
    private static final String CH_PASSWORD_FILE = "--clickhouse.password.file";
    private static final List<String> PASSWORD_FILE_OPTIONS = List.of(PG_PASSWORD_FILE, CH_PASSWORD_FILE);
    /** The widest mode a password file may have: the owner and the pod's fsGroup (the flink group) read it. */
    private static final int SECRET_MODE_MAX = 0440;
    /** Where walshadow.yaml mounts the Secret (the broken copies below edit it). */
    private static final String SECRETS = "/etc/walshadow/secrets";
    /** As the operator reads it, but an enum constant this (older, 1.10) model lacks reads as null, checked apart. */
    /** Flink's Prometheus reporter in walshadow.yaml, and the container port the metrics manifests scrape by name. */
    private static final String PROM_FACTORY_KEY = "metrics.reporter.prom.factory.class";
    private static final String PROM_PORT_KEY = "metrics.reporter.prom.port";
    private static final String METRICS_PORT = "metrics";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);

    @Test
    void shippedManifestsPassEveryCheck() throws Exception {
        ObjectNode deployment = read("walshadow.yaml");
        List<String> problems = problems(deployment);
        assertTrue(problems.isEmpty(), "problems in k8s/walshadow.yaml: " + problems);
        FlinkDeployment d = YAML.treeToValue(deployment, FlinkDeployment.class);
        assertEquals("walshadow", d.getMetadata().getName());
        assertEquals(UpgradeMode.SAVEPOINT, d.getSpec().getJob().getUpgradeMode());
    }

    @Test
    void brokenCopiesAreCaught() throws Exception {
        assertCaught("upgradeMode", d -> job(d).put("upgradeMode", "stateless"));
        assertCaught("state backend", d -> conf(d).put("state.backend.type", "hashmap"));
        assertCaught("incremental", d -> conf(d).remove("execution.checkpointing.incremental"));
        assertCaught("retention", d -> conf(d).put("execution.checkpointing.externalized-checkpoint-retention",
                "DELETE_ON_CANCELLATION"));
        assertCaught("savepoint-dir", d -> conf(d).put("execution.checkpointing.savepoint-dir", "file:///tmp/sp"));
        assertCaught("entryClass", d -> job(d).put("entryClass", "io.walshadow.job.Walshadow"));
        assertCaught("jarURI", d -> job(d).put("jarURI", "local:///opt/flink/usrlib/job.jar"));
        assertCaught("--clickhouse.url", d -> setArg(d, "--clickhouse.url", "clickhouse:8443"));
        assertCaught("flinkVersion", d -> ((ObjectNode) d.get("spec")).put("flinkVersion", "v1_20"));
        assertCaught("memory", d -> ((ObjectNode) d.get("spec").get("taskManager").get("resource")).remove("memory"));
        assertCaught("claimName", d -> ((ObjectNode) d.get("spec").get("podTemplate").get("spec").withArray("volumes")
                .get(0).get("persistentVolumeClaim")).put("claimName", "other"));

        // security defaults
        assertCaught("readOnlyRootFilesystem", d -> security(d).remove("readOnlyRootFilesystem"));
        assertCaught("readOnlyRootFilesystem", d -> security(d).put("readOnlyRootFilesystem", false));
        // a role's own template overrides the common one (the operator merges it over)
        assertCaught("taskManager container flink-main-container: readOnlyRootFilesystem", d -> ((ObjectNode)
                d.get("spec").get("taskManager")).set("podTemplate", YAML.valueToTree(Map.of("spec", Map.of(
                "containers", List.of(Map.of("name", MAIN_CONTAINER,
                        "securityContext", Map.of("readOnlyRootFilesystem", false))))))));
        assertCaught("allowPrivilegeEscalation", d -> security(d).put("allowPrivilegeEscalation", true));
        assertCaught("capabilities drop ALL", d -> ((ObjectNode) security(d).get("capabilities")).putArray("drop")
                .add("NET_RAW"));
        assertCaught("capabilities add none", d -> ((ObjectNode) security(d).get("capabilities")).putArray("add")
                .add("SYS_ADMIN"));
        assertCaught("not privileged", d -> security(d).put("privileged", true));
        assertCaught("runAsNonRoot", d -> podSecurity(d).put("runAsNonRoot", false));
        assertCaught("runAsUser", d -> podSecurity(d).put("runAsUser", 0));
        // a container-level setting overrides the pod's
        assertCaught("runAsUser", d -> security(d).put("runAsUser", 1000));
        assertCaught("runAsGroup", d -> podSecurity(d).remove("runAsGroup"));
        assertCaught("fsGroup", d -> podSecurity(d).remove("fsGroup"));
        assertCaught("seccompProfile", d -> ((ObjectNode) podSecurity(d).get("seccompProfile"))
                .put("type", "Unconfined"));
        assertCaught("seccompProfile", d -> podSecurity(d).remove("seccompProfile"));
        // a sidecar is held to the same rules
        assertCaught("container sidecar: readOnlyRootFilesystem", d -> podSpec(d).withArray("containers")
                .addObject().put("name", "sidecar").put("image", "busybox"));
        assertCaught("/tmp (the JVM's temp files) on a writable", d -> removeMount(d, "/tmp"));
        assertCaught("/opt/flink/log (Flink's log files) on a writable", d -> removeMount(d, "/opt/flink/log"));
        assertCaught("io.tmp.dirs", d -> conf(d).put("io.tmp.dirs", "/opt/flink/tmp"));
        assertCaught("io.tmp.dirs", d -> removeMount(d, "/flink-local"));
        assertCaught("state.backend.rocksdb.localdir", d -> conf(d).remove("state.backend.rocksdb.localdir"));
        assertCaught("state.backend.rocksdb.localdir", d -> conf(d).put("state.backend.rocksdb.localdir",
                "/opt/flink/rocksdb"));
        assertCaught("io.tmp.dirs", d -> mount(d, "/flink-local").put("readOnly", true));
        assertCaught("taskManager ephemeral-storage", d -> ((ObjectNode) d.get("spec").get("taskManager")
                .get("resource")).remove("ephemeralStorage"));
        assertCaught("jobManager ephemeral-storage", d -> ((ObjectNode) d.get("spec").get("jobManager")
                .get("resource")).remove("ephemeralStorage"));
        // metrics: the reporter and the container port the Service and PodMonitor name
        assertCaught("a port named metrics", d -> container(d).remove("ports"));
        assertCaught("a port named metrics", d -> ((ObjectNode) container(d).withArray("ports").get(0))
                .put("name", "prom"));
        assertCaught("a port named metrics", d -> conf(d).put(PROM_PORT_KEY, "9250"));
        assertCaught(PROM_FACTORY_KEY, d -> conf(d).remove(PROM_FACTORY_KEY));
        // high availability
        assertCaught("high-availability.type", d -> conf(d).remove("high-availability.type"));
        assertCaught("high-availability.storageDir", d -> conf(d).put("high-availability.storageDir",
                "file:///tmp/ha"));
        assertCaught("serviceAccount", d -> ((ObjectNode) d.get("spec")).remove("serviceAccount"));
        // secrets: no literal password anywhere
        assertCaught("job.args hold no password", d -> ((ArrayNode) job(d).get("args"))
                .add("--pg.password").add("hunter2"));
        assertCaught("job.args hold no password", d -> ((ArrayNode) job(d).get("args"))
                .add("--clickhouse.password").add("hunter2"));
        assertCaught("env WALSHADOW_PG_PASSWORD from a secretKeyRef, not a literal value", d -> container(d)
                .withArray("env").addObject().put("name", JobConfig.PG_PASSWORD_ENV).put("value", "hunter2"));
        assertCaught("env EXTRA_TOKEN", d -> container(d).withArray("env").addObject()
                .put("name", "EXTRA_TOKEN").put("value", "hunter2"));
        assertCaught(JobConfig.CH_PASSWORD_KEY, d -> conf(d).put(JobConfig.CH_PASSWORD_KEY, "hunter2"));
        // secrets: the two password files, in the mounted Secret
        String pg = PG_PASSWORD_FILE + " " + SECRETS + "/pg-password: ";
        String ch = CH_PASSWORD_FILE + " " + SECRETS + "/clickhouse-password: ";
        assertCaught(pg + "mounted readOnly", d -> mount(d, SECRETS).remove("readOnly"));
        assertCaught(ch + "mounted readOnly", d -> mount(d, SECRETS).put("readOnly", false));
        assertCaught(pg + "from the Secret walshadow-credentials", d -> secretVolume(d)
                .put("secretName", "other-credentials"));
        assertCaught(pg + "mode no wider than 0440", d -> secretVolume(d).put("defaultMode", 0644));
        // Kubernetes' default mode is 0644
        assertCaught(ch + "mode no wider than 0440", d -> secretVolume(d).remove("defaultMode"));
        // an item's own mode wins over defaultMode
        assertCaught(ch + "mode no wider than 0440", d -> ((ObjectNode) secretVolume(d).withArray("items").get(1))
                .put("mode", 0444));
        assertCaught(pg + "key password exists in secret.example.yaml", d -> ((ObjectNode) secretVolume(d)
                .withArray("items").get(0)).put("key", "password"));
        // without items, each key is a file named like it
        assertCaught(PG_PASSWORD_FILE + " " + SECRETS + "/pg-pass: key pg-pass exists in secret.example.yaml", d -> {
            secretVolume(d).remove("items");
            setArg(d, PG_PASSWORD_FILE, SECRETS + "/pg-pass");
        });
        assertCaught(PG_PASSWORD_FILE + " " + SECRETS + "/pg: a file the Secret's items map a key to",
                d -> setArg(d, PG_PASSWORD_FILE, SECRETS + "/pg"));
        assertCaught(pg + "the secret volume not optional", d -> secretVolume(d).put("optional", true));
        assertCaught(CH_PASSWORD_FILE + " /flink-data/clickhouse-password: a file in a secret volume mounted",
                d -> setArg(d, CH_PASSWORD_FILE, "/flink-data/clickhouse-password"));
        assertCaught(CH_PASSWORD_FILE + " /etc/walshadow/clickhouse-password: a file in a secret volume mounted",
                d -> setArg(d, CH_PASSWORD_FILE, "/etc/walshadow/clickhouse-password"));
        assertCaught(CH_PASSWORD_FILE + " " + SECRETS + "/../clickhouse-password: a file in a secret volume mounted",
                d -> setArg(d, CH_PASSWORD_FILE, SECRETS + "/../clickhouse-password"));
        // a literal password where the path belongs
        assertCaught(PG_PASSWORD_FILE + " hunter2: a file in a secret volume mounted",
                d -> setArg(d, PG_PASSWORD_FILE, "hunter2"));
        assertCaught("job.args hold no password", d -> setArg(d, PG_PASSWORD_FILE, "hunter2"));
        assertCaught("job.args " + CH_PASSWORD_FILE + " <a file", d -> removeArg(d, CH_PASSWORD_FILE));
        assertCaught("the job reads the ClickHouse password from " + CH_PASSWORD_FILE,
                d -> removeArg(d, CH_PASSWORD_FILE));
        assertCaught("job.args " + PG_PASSWORD_FILE + " <a file", d -> removeArg(d, PG_PASSWORD_FILE));
        assertCaught(pg + "a file in a secret volume mounted", d -> removeVolume(d, "credentials"));
        // any other mount of a secret is held to the same rules
        assertCaught("container flink-main-container: secret volume credentials mounted readOnly",
                d -> container(d).withArray("volumeMounts").addObject().put("name", "credentials")
                        .put("mountPath", "/etc/other"));
    }

    @Test
    void equivalentSecretMountsPass() throws Exception {
        // without items: each key is a file of its own name (the manifest's paths are the keys)
        assertPasses(d -> secretVolume(d).remove("items"));
        assertPasses(d -> secretVolume(d).put("defaultMode", 0400));
        assertPasses(d -> {
            secretVolume(d).put("defaultMode", 0644);
            for (JsonNode item : secretVolume(d).withArray("items")) {
                ((ObjectNode) item).put("mode", 0440);
            }
        });
        // items may rename the files
        assertPasses(d -> {
            ((ObjectNode) secretVolume(d).withArray("items").get(0)).put("path", "pg/password");
            setArg(d, PG_PASSWORD_FILE, SECRETS + "/pg/password");
        });
    }

    @Test
    void theMetricsServiceAndPodMonitorScrapeThePodsMetricsPort() throws Exception {
        List<String> problems = metricsProblems(read("walshadow.yaml"), read("metrics.yaml"), read("podmonitor.yaml"));
        assertTrue(problems.isEmpty(), "problems in k8s/metrics.yaml, k8s/podmonitor.yaml: " + problems);
        assertMetricsCaught("Service selector", s -> ((ObjectNode) s.get("spec").get("selector")).put("app", "other"));
        assertMetricsCaught("Service selector", s -> ((ObjectNode) s.get("spec").get("selector"))
                .put("component", "jobmanager")); // the TaskManagers' pods left out
        assertMetricsCaught("Service port metrics", s -> ((ObjectNode) s.get("spec").withArray("ports").get(0))
                .put("targetPort", 9250));
        assertMetricsCaught("Service port metrics", s -> ((ObjectNode) s.get("spec").withArray("ports").get(0))
                .put("targetPort", "http"));
        assertMetricsCaught("headless", s -> ((ObjectNode) s.get("spec")).remove("clusterIP"));
        assertMetricsCaught("PodMonitor selector", null, m -> ((ObjectNode) m.get("spec").get("selector")
                .get("matchLabels")).put("app", "other"));
        assertMetricsCaught("PodMonitor podMetricsEndpoints", null, m -> ((ObjectNode) m.get("spec")
                .withArray("podMetricsEndpoints").get(0)).put("port", "web"));
        assertMetricsCaught("PodMonitor podMetricsEndpoints", null, m -> ((ObjectNode) m.get("spec")
                .withArray("podMetricsEndpoints").get(0)).put("path", "/"));
        // a target port given as the number works as well as the name
        ObjectNode service = read("metrics.yaml");
        ((ObjectNode) service.get("spec").withArray("ports").get(0)).put("targetPort", 9249);
        assertEquals(List.of(), metricsProblems(read("walshadow.yaml"), service, read("podmonitor.yaml")));
    }

    private static void assertMetricsCaught(String expected, Consumer<ObjectNode> breakService) throws IOException {
        assertMetricsCaught(expected, breakService, null);
    }

    private static void assertMetricsCaught(String expected, Consumer<ObjectNode> breakService,
                                            Consumer<ObjectNode> breakMonitor) throws IOException {
        ObjectNode service = read("metrics.yaml");
        ObjectNode monitor = read("podmonitor.yaml");
        if (breakService != null) {
            breakService.accept(service);
        }
        if (breakMonitor != null) {
            breakMonitor.accept(monitor);
        }
        List<String> problems = metricsProblems(read("walshadow.yaml"), service, monitor);
        assertTrue(problems.stream().anyMatch(p -> p.contains(expected)),
                "a copy broken at " + expected + " was not caught; problems: " + problems);
    }

    /**
     * Whether the Service of metrics.yaml and the PodMonitor of podmonitor.yaml reach the reporter's port on every
     * pod of the FlinkDeployment: their selectors match the labels the operator's native Kubernetes mode gives the
     * JobManager's and the TaskManagers' pods (app=&lt;name&gt;, type=flink-native-kubernetes, component=&lt;role&gt;,
     * plus the pod template's), and they name the container port the pods expose the reporter on.
     */
    static List<String> metricsProblems(ObjectNode deployment, ObjectNode serviceTree, ObjectNode monitor)
            throws IOException {
        List<String> out = new ArrayList<>();
        String name = deployment.path("metadata").path("name").asText();
        String promPort = deployment.path("spec").path("flinkConfiguration").path(PROM_PORT_KEY).asText();
        List<Map<String, String>> podLabels = new ArrayList<>();
        Map<String, Integer> metricsPorts = new LinkedHashMap<>();
        for (String role : List.of("jobManager", "taskManager")) {
            PodTemplateSpec pod = effectivePod(deployment, role);
            Map<String, String> labels = new LinkedHashMap<>();
            if (pod.getMetadata() != null && pod.getMetadata().getLabels() != null) {
                labels.putAll(pod.getMetadata().getLabels());
            }
            labels.put("app", name);
            labels.put("type", "flink-native-kubernetes");
            labels.put("component", role.equals("jobManager") ? "jobmanager" : "taskmanager");
            podLabels.add(labels);
            pod.getSpec().getContainers().stream().filter(c -> MAIN_CONTAINER.equals(c.getName()))
                    .flatMap(c -> c.getPorts().stream()).filter(p -> METRICS_PORT.equals(p.getName()))
                    .forEach(p -> metricsPorts.put(role, p.getContainerPort()));
        }
        check(out, "walshadow.yaml: both roles expose the port named " + METRICS_PORT + " on " + PROM_PORT_KEY + " "
                + promPort + ": " + metricsPorts, metricsPorts.size() == 2 && metricsPorts.values().stream()
                .allMatch(p -> String.valueOf(p).equals(promPort)));

        io.fabric8.kubernetes.api.model.Service service = YAML.treeToValue(serviceTree,
                io.fabric8.kubernetes.api.model.Service.class);
        Map<String, String> selector = service.getSpec().getSelector() == null ? Map.of()
                : service.getSpec().getSelector();
        check(out, "Service selector " + selector + " matches the JobManager's and the TaskManagers' pods " + podLabels,
                !selector.isEmpty() && podLabels.stream().allMatch(l -> l.entrySet().containsAll(selector.entrySet())));
        check(out, "Service headless (clusterIP None: every pod an endpoint, not one behind a virtual IP)",
                "None".equals(service.getSpec().getClusterIP()));
        check(out, "Service port " + METRICS_PORT + " to the pods' port named " + METRICS_PORT + " (or " + promPort
                + ")", service.getSpec().getPorts().stream().anyMatch(p -> METRICS_PORT.equals(p.getName())
                        && p.getTargetPort() != null && (METRICS_PORT.equals(p.getTargetPort().getStrVal())
                                || String.valueOf(p.getTargetPort().getIntVal()).equals(promPort))));

        check(out, "PodMonitor apiVersion monitoring.coreos.com/v1",
                "monitoring.coreos.com/v1".equals(monitor.path("apiVersion").asText())
                        && "PodMonitor".equals(monitor.path("kind").asText()));
        Map<String, String> match = new LinkedHashMap<>();
        monitor.path("spec").path("selector").path("matchLabels").fields()
                .forEachRemaining(f -> match.put(f.getKey(), f.getValue().asText()));
        check(out, "PodMonitor selector " + match + " matches the JobManager's and the TaskManagers' pods "
                + podLabels, !match.isEmpty() && podLabels.stream()
                .allMatch(l -> l.entrySet().containsAll(match.entrySet())));
        boolean endpoint = false;
        for (JsonNode e : monitor.path("spec").path("podMetricsEndpoints")) {
            endpoint |= METRICS_PORT.equals(e.path("port").asText()) && "/metrics".equals(e.path("path")
                    .asText("/metrics"));
        }
        check(out, "PodMonitor podMetricsEndpoints: port " + METRICS_PORT + ", path /metrics", endpoint);
        return out;
    }

    private static void assertPasses(Consumer<ObjectNode> change) throws IOException {
        ObjectNode copy = read("walshadow.yaml");
        change.accept(copy);
        List<String> problems = problems(copy);
        assertTrue(problems.isEmpty(), "problems: " + problems);
    }

    private static void assertCaught(String expected, Consumer<ObjectNode> breakIt) throws IOException {
        ObjectNode copy = read("walshadow.yaml");
        breakIt.accept(copy);
        List<String> problems = problems(copy);
        assertTrue(problems.stream().anyMatch(p -> p.contains(expected)),
                "a copy broken at " + expected + " was not caught; problems: " + problems);
    }

    /** Everything wrong with this FlinkDeployment for walshadow; empty when nothing is. */
    static List<String> problems(ObjectNode tree) throws IOException {
        List<String> out = new ArrayList<>();
        FlinkDeployment d = YAML.treeToValue(tree, FlinkDeployment.class);
        FlinkDeploymentSpec spec = d.getSpec();
        check(out, "apiVersion flink.apache.org/v1beta1 and kind FlinkDeployment",
                "flink.apache.org/v1beta1".equals(d.getApiVersion()) && "FlinkDeployment".equals(d.getKind()));
        // the enum of this model ends at v1_20: compare the text with the Flink the job is built against
        String flink = System.getProperty("walshadow.flink.version", "2.3.0");
        String wantVersion = "v" + flink.replaceFirst("^(\\d+)\\.(\\d+).*", "$1_$2");
        check(out, "flinkVersion " + wantVersion + " (the job's Flink " + flink + ")",
                wantVersion.equals(tree.get("spec").path("flinkVersion").asText()));

        JobSpec job = spec.getJob();
        check(out, "job.upgradeMode savepoint (last-state or stateless would not take a savepoint on upgrade)",
                job != null && job.getUpgradeMode() == UpgradeMode.SAVEPOINT);
        if (job == null) {
            return out;
        }
        check(out, "job.entryClass names the job's main class " + io.walshadow.job.WalshadowJob.class.getName(),
                io.walshadow.job.WalshadowJob.class.getName().equals(job.getEntryClass()));
        String jarPath = job.getJarURI() == null ? "" : job.getJarURI().replaceFirst("^local://", "");
        check(out, "job.jarURI local://<path the Dockerfile copies the jar to>, got " + job.getJarURI(),
                job.getJarURI() != null && job.getJarURI().startsWith("local://")
                        && dockerfileDestinations().contains(jarPath));
        check(out, "job.parallelism 1 (the source reads one slot)", job.getParallelism() == 1);
        String[] args = job.getArgs() == null ? new String[0] : job.getArgs();
        // main() reads the password files: in application mode, in the JobManager
        PodSpec jobManager = effectivePod(tree, "jobManager").getSpec();
        Container jobManagerMain = jobManager == null ? null : jobManager.getContainers().stream()
                .filter(c -> MAIN_CONTAINER.equals(c.getName())).findFirst().orElse(null);
        List<String> literal = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (PASSWORD_FILE_OPTIONS.contains(args[i]) && i + 1 < args.length) {
                SecretFile f = locate(args[i + 1], jobManager, jobManagerMain);
                if (f != null && f.volume() != null && f.volume().getSecret() != null) {
                    i++; // a path in a mounted Secret, which the checks below hold to the rest
                    continue;
                }
            }
            if (args[i].toLowerCase(Locale.ROOT).contains("password")) {
                literal.add(args[i]);
            }
        }
        check(out, "job.args hold no password (they show in the web UI; only " + String.join(" / ",
                PASSWORD_FILE_OPTIONS) + " naming a file in a mounted secret volume): " + literal, literal.isEmpty());
        Secret secret = YAML.treeToValue(read("secret.example.yaml"), Secret.class);
        for (String option : PASSWORD_FILE_OPTIONS) {
            int at = Arrays.asList(args).indexOf(option);
            check(out, "job.args " + option + " <a file of the mounted Secret " + secret.getMetadata().getName()
                    + "> (the password comes from nowhere else)", at >= 0 && at + 1 < args.length);
            if (at >= 0 && at + 1 < args.length) {
                passwordFileProblems(out, option, args[at + 1], jobManager, jobManagerMain, secret);
            }
        }
        jobConfigProblems(out, args);

        Map<String, String> conf = spec.getFlinkConfiguration() == null ? Map.of() : spec.getFlinkConfiguration();
        check(out, "state backend rocksdb (state.backend.type)", "rocksdb".equals(conf.get("state.backend.type")));
        check(out, "incremental checkpoints (execution.checkpointing.incremental: true)",
                "true".equals(conf.get("execution.checkpointing.incremental")));
        check(out, "retention RETAIN_ON_CANCELLATION (execution.checkpointing.externalized-checkpoint-retention)",
                "RETAIN_ON_CANCELLATION".equals(conf.get("execution.checkpointing.externalized-checkpoint-retention")));
        check(out, "high-availability.type kubernetes (a JobManager that dies comes back with the job and its last"
                + " checkpoint)", "kubernetes".equals(conf.get("high-availability.type")));
        check(out, PROM_FACTORY_KEY + " Flink's PrometheusReporterFactory (every metric of the job on the pods)",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory".equals(conf.get(PROM_FACTORY_KEY)));
        check(out, "serviceAccount set (native Kubernetes and Kubernetes HA need its RBAC on pods and configmaps)",
                spec.getServiceAccount() != null && !spec.getServiceAccount().isBlank());
        check(out, "state.backend.rocksdb.localdir set (RocksDB's local files: deliberately on a volume, not the"
                + " read-only root filesystem or a small /tmp)",
                !conf.getOrDefault("state.backend.rocksdb.localdir", "").isBlank());
        for (String key : List.of(JobConfig.PG_PASSWORD_KEY, JobConfig.CH_PASSWORD_KEY)) {
            check(out, "no " + key + " in flinkConfiguration (it lands in the FlinkDeployment and a ConfigMap, neither"
                    + " of them a Secret)", !conf.containsKey(key));
        }

        Container main = spec.getPodTemplate() == null ? null : spec.getPodTemplate().getSpec().getContainers().stream()
                .filter(c -> "flink-main-container".equals(c.getName())).findFirst().orElse(null);
        check(out, "podTemplate container flink-main-container", main != null);
        if (main != null) {
            // both state directories on the mounted claim of storage.yaml
            PersistentVolumeClaim claim = YAML.treeToValue(read("storage.yaml"), PersistentVolumeClaim.class);
            List<Volume> volumes = spec.getPodTemplate().getSpec().getVolumes();
            for (String key : List.of("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir",
                    "high-availability.storageDir")) {
                String dir = conf.getOrDefault(key, "").replaceFirst("^file://", "");
                boolean mounted = false;
                for (VolumeMount m : main.getVolumeMounts()) {
                    Volume v = volumes.stream().filter(x -> x.getName().equals(m.getName())).findFirst().orElse(null);
                    mounted |= dir.startsWith(m.getMountPath() + "/") && v != null && v.getPersistentVolumeClaim() != null
                            && claim.getMetadata().getName().equals(v.getPersistentVolumeClaim().getClaimName());
                }
                check(out, key + " " + conf.get(key) + " on the mounted claim " + claim.getMetadata().getName()
                        + " (claimName)", mounted);
            }
        }
        for (var r : Map.of("jobManager", spec.getJobManager() == null ? null : spec.getJobManager().getResource(),
                "taskManager", spec.getTaskManager() == null ? null : spec.getTaskManager().getResource()).entrySet()) {
            check(out, r.getKey() + ".resource memory and cpu", r.getValue() != null && r.getValue().getMemory() != null
                    && r.getValue().getCpu() != null && r.getValue().getCpu() > 0);
        }
        String dockerfile = Files.readString(DIR.resolve("Dockerfile"));
        check(out, "Dockerfile FROM flink:... (whose flink user is uid/gid " + FLINK_UID + ") with no other USER",
                Pattern.compile("(?m)^FROM\\s+flink:").matcher(dockerfile).find()
                        && !Pattern.compile("(?mi)^USER\\s+(?!flink\\b|" + FLINK_UID + "\\b)").matcher(dockerfile).find());
        for (String role : List.of("jobManager", "taskManager")) {
            podProblems(out, role, effectivePod(tree, role), conf);
        }
        return out;
    }

    /** The security defaults of one role's pod, as {@link #effectivePod} builds it. */
    private static void podProblems(List<String> out, String role, PodTemplateSpec pod, Map<String, String> conf) {
        PodSpec ps = pod.getSpec();
        Container main = ps == null ? null : ps.getContainers().stream()
                .filter(c -> MAIN_CONTAINER.equals(c.getName())).findFirst().orElse(null);
        check(out, role + " pod with container " + MAIN_CONTAINER, main != null);
        if (main == null) {
            return;
        }
        PodSecurityContext psc = ps.getSecurityContext() == null ? new PodSecurityContext() : ps.getSecurityContext();
        check(out, role + " pod securityContext fsGroup " + FLINK_UID + " (the flink group owns the volumes)",
                Long.valueOf(FLINK_UID).equals(psc.getFsGroup()));
        List<Volume> volumes = ps.getVolumes();
        for (Container c : Stream.concat(ps.getInitContainers().stream(), ps.getContainers().stream()).toList()) {
            String who = role + " container " + c.getName() + ": ";
            SecurityContext sc = c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
            // a container's own setting wins over the pod's
            check(out, who + "runAsNonRoot true",
                    Boolean.TRUE.equals(sc.getRunAsNonRoot() != null ? sc.getRunAsNonRoot() : psc.getRunAsNonRoot()));
            check(out, who + "runAsUser " + FLINK_UID + " (the image's flink user)", Long.valueOf(FLINK_UID)
                    .equals(sc.getRunAsUser() != null ? sc.getRunAsUser() : psc.getRunAsUser()));
            check(out, who + "runAsGroup " + FLINK_UID + " (the image's flink group)", Long.valueOf(FLINK_UID)
                    .equals(sc.getRunAsGroup() != null ? sc.getRunAsGroup() : psc.getRunAsGroup()));
            SeccompProfile seccomp = sc.getSeccompProfile() != null ? sc.getSeccompProfile() : psc.getSeccompProfile();
            check(out, who + "seccompProfile RuntimeDefault",
                    seccomp != null && "RuntimeDefault".equals(seccomp.getType()));
            check(out, who + "allowPrivilegeEscalation false", Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation()));
            check(out, who + "not privileged", !Boolean.TRUE.equals(sc.getPrivileged()));
            check(out, who + "readOnlyRootFilesystem true", Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()));
            Capabilities caps = sc.getCapabilities();
            check(out, who + "capabilities drop ALL", caps != null && caps.getDrop() != null
                    && caps.getDrop().contains("ALL"));
            check(out, who + "capabilities add none", caps == null || caps.getAdd() == null || caps.getAdd().isEmpty());
            for (EnvVar e : c.getEnv()) {
                if (e.getName().toUpperCase(java.util.Locale.ROOT).matches(".*(PASSWORD|SECRET|TOKEN|CREDENTIAL).*")) {
                    check(out, who + "env " + e.getName() + " from a secretKeyRef, not a literal value",
                            (e.getValue() == null || e.getValue().isEmpty()) && e.getValueFrom() != null
                                    && e.getValueFrom().getSecretKeyRef() != null);
                }
            }
            for (VolumeMount m : c.getVolumeMounts()) {
                Volume v = volumes.stream().filter(x -> x.getName().equals(m.getName())).findFirst().orElse(null);
                if (v != null && v.getSecret() != null) {
                    SecretVolumeSource s = v.getSecret();
                    // with items, only those are files, each with its own mode or else defaultMode
                    boolean narrow = s.getItems() == null || s.getItems().isEmpty()
                            ? withinSecretMode(s.getDefaultMode())
                            : s.getItems().stream().allMatch(it -> withinSecretMode(it.getMode() != null
                                    ? it.getMode() : s.getDefaultMode()));
                    check(out, who + "secret volume " + v.getName() + " mounted readOnly, its modes no wider than 0"
                            + Integer.toOctalString(SECRET_MODE_MAX) + " (the flink group reads it, others have no"
                            + " access)", Boolean.TRUE.equals(m.getReadOnly()) && narrow);
                }
            }
        }

        String promPort = conf.getOrDefault(PROM_PORT_KEY, "").trim();
        check(out, role + " container " + MAIN_CONTAINER + ": a port named " + METRICS_PORT + " on "
                + PROM_PORT_KEY + " " + promPort + " (what k8s/metrics.yaml and k8s/podmonitor.yaml scrape)",
                main.getPorts().stream().anyMatch(p -> METRICS_PORT.equals(p.getName())
                        && String.valueOf(p.getContainerPort()).equals(promPort) && !"UDP".equals(p.getProtocol())));

        Map<String, String> writes = new LinkedHashMap<>();
        writes.put("/tmp", "/tmp (the JVM's temp files)");
        writes.put("/opt/flink/log", "/opt/flink/log (Flink's log files)");
        for (String dir : conf.getOrDefault("io.tmp.dirs", "/tmp").split("[,:;]")) {
            writes.put(dir.trim(), "io.tmp.dirs " + dir.trim() + " (spill files, blobs, the working directory)");
        }
        String rocksdb = conf.get("state.backend.rocksdb.localdir");
        if (rocksdb != null && role.equals("taskManager")) {
            for (String dir : rocksdb.replace("file://", "").split("[,:;]")) {
                writes.put(dir.trim(), "state.backend.rocksdb.localdir " + dir.trim());
            }
        }
        for (var w : writes.entrySet()) {
            boolean ok = false;
            for (VolumeMount m : main.getVolumeMounts()) {
                Volume v = volumes.stream().filter(x -> x.getName().equals(m.getName())).findFirst().orElse(null);
                ok |= (w.getKey().equals(m.getMountPath()) || w.getKey().startsWith(m.getMountPath() + "/"))
                        && !Boolean.TRUE.equals(m.getReadOnly()) && v != null
                        && (v.getEmptyDir() != null || v.getPersistentVolumeClaim() != null || v.getEphemeral() != null);
            }
            check(out, role + ": " + w.getValue() + " on a writable emptyDir or claim mount (the root filesystem is"
                    + " read-only)", ok);
        }

        ResourceRequirements r = main.getResources();
        Quantity request = r == null || r.getRequests() == null ? null : r.getRequests().get(EPHEMERAL_STORAGE);
        Quantity limit = r == null || r.getLimits() == null ? null : r.getLimits().get(EPHEMERAL_STORAGE);
        check(out, role + " ephemeral-storage request and limit (resource.ephemeralStorage), the limit not below the"
                + " request", request != null && limit != null && Quantity.getAmountInBytes(request).signum() > 0
                && Quantity.getAmountInBytes(limit).compareTo(Quantity.getAmountInBytes(request)) >= 0);
    }

    /** A file in a volume mount: the mount, its volume (null when the pod has none of that name), the path inside. */
    private record SecretFile(VolumeMount mount, Volume volume, String path) {
    }

    /** The most specific mount of {@code main} holding the absolute path {@code file}; null when none does. */
    private static SecretFile locate(String file, PodSpec pod, Container main) {
        if (pod == null || main == null || !file.startsWith("/")) {
            return null;
        }
        String path = Path.of(file).normalize().toString();
        VolumeMount best = null;
        String rest = null;
        for (VolumeMount m : main.getVolumeMounts()) {
            String at = m.getMountPath() == null ? "" : m.getMountPath().replaceFirst("/+$", "");
            String r = path.equals(at) ? "" : path.startsWith(at + "/") ? path.substring(at.length() + 1) : null;
            if (r != null && !at.isEmpty() && (rest == null || r.length() < rest.length())) {
                best = m;
                rest = r;
            }
        }
        if (best == null) {
            return null;
        }
        String sub = best.getSubPath() == null ? "" : best.getSubPath();
        String inVolume = sub.isEmpty() ? rest : rest.isEmpty() ? sub : sub + "/" + rest;
        String name = best.getName();
        return new SecretFile(best, pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElse(null), inVolume);
    }

    /** Whether {@code mode} (Kubernetes' 0644 when unset) grants nothing beyond {@link #SECRET_MODE_MAX}. */
    private static boolean withinSecretMode(Integer mode) {
        return ((mode == null ? 0644 : mode) & ~SECRET_MODE_MAX) == 0;
    }

    /**
     * The password file {@code file} of {@code option}: in a read-only mount of the main container of the
     * JobManager's pod, of a secret volume of the Secret of secret.example.yaml, one of whose keys it is (through
     * {@code items}, or named like the key without them), readable by no one but its owner and the flink group.
     */
    private static void passwordFileProblems(List<String> out, String option, String file, PodSpec pod,
                                             Container main, Secret secret) {
        String who = option + " " + file + ": ";
        SecretFile f = locate(file, pod, main);
        if (f == null || f.volume() == null || f.volume().getSecret() == null) {
            out.add(who + "a file in a secret volume mounted in the jobManager's " + MAIN_CONTAINER);
            return;
        }
        SecretVolumeSource s = f.volume().getSecret();
        String name = secret.getMetadata().getName();
        check(out, who + "mounted readOnly (mount " + f.mount().getName() + ")", Boolean.TRUE.equals(f.mount()
                .getReadOnly()));
        check(out, who + "from the Secret " + name + " of secret.example.yaml, got " + s.getSecretName(),
                name.equals(s.getSecretName()));
        check(out, who + "the secret volume not optional (without the Secret the job would fail on a missing file)",
                !Boolean.TRUE.equals(s.getOptional()));
        Integer mode = s.getDefaultMode();
        String key;
        if (s.getItems() == null || s.getItems().isEmpty()) {
            key = f.path();
        } else {
            KeyToPath item = s.getItems().stream()
                    .filter(it -> it.getPath() != null && Path.of(it.getPath()).normalize().toString().equals(f.path()))
                    .findFirst().orElse(null);
            check(out, who + "a file the Secret's items map a key to (path " + f.path() + " in the volume)",
                    item != null);
            key = item == null ? null : item.getKey();
            if (item != null && item.getMode() != null) {
                mode = item.getMode();
            }
        }
        if (key != null) {
            Set<String> keys = new TreeSet<>();
            keys.addAll(secret.getStringData() == null ? Set.of() : secret.getStringData().keySet());
            keys.addAll(secret.getData() == null ? Set.of() : secret.getData().keySet());
            check(out, who + "key " + key + " exists in secret.example.yaml " + keys, keys.contains(key));
        }
        check(out, who + "mode no wider than 0" + Integer.toOctalString(SECRET_MODE_MAX) + " (the flink group"
                + " reads it, nobody writes it, others have no access), got 0" + Integer.toOctalString(
                mode == null ? 0644 : mode), withinSecretMode(mode));
    }

    /**
     * The job's own parser takes the arguments, the password files swapped for temporary ones (it reads them while
     * parsing), and reads each password from its file (no environment or Flink configuration to fall back on).
     */
    private static void jobConfigProblems(List<String> out, String[] args) throws IOException {
        Path dir = Files.createTempDirectory("walshadow-secrets");
        try {
            String[] local = args.clone();
            for (int i = 0; i + 1 < local.length; i++) {
                if (PASSWORD_FILE_OPTIONS.contains(local[i])) {
                    Path f = dir.resolve(local[i].substring(2));
                    Files.writeString(f, "from " + local[i] + "\n");
                    local[++i] = f.toString();
                }
            }
            JobConfig c = JobConfig.from(local, Map.of(), Map.of());
            String chPassword = c.requireClickHouse().password();
            check(out, "the job reads the PostgreSQL password from " + PG_PASSWORD_FILE,
                    ("from " + PG_PASSWORD_FILE).equals(c.pg().password()));
            check(out, "the job reads the ClickHouse password from " + CH_PASSWORD_FILE,
                    ("from " + CH_PASSWORD_FILE).equals(chPassword));
        } catch (IllegalArgumentException e) {
            out.add("job.args rejected by the job: " + e.getMessage());
        } finally {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    /**
     * The pod template of {@code role} (jobManager or taskManager) as the operator builds it: the common
     * {@code podTemplate}, the role's own merged over it (objects field by field, arrays element by element at the
     * same index: the operator's default), then {@code resource.ephemeralStorage} as the main container's request
     * and limit.
     */
    static PodTemplateSpec effectivePod(ObjectNode tree, String role) throws IOException {
        JsonNode spec = tree.path("spec");
        ObjectNode merged = spec.path("podTemplate").isObject()
                ? ((ObjectNode) spec.get("podTemplate")).deepCopy() : YAML.createObjectNode();
        if (spec.path(role).path("podTemplate").isObject()) {
            mergeInto(merged, (ObjectNode) spec.get(role).get("podTemplate"));
        }
        PodTemplateSpec pod = YAML.treeToValue(merged, PodTemplateSpec.class);
        String ephemeral = spec.path(role).path("resource").path("ephemeralStorage").asText("");
        if (!ephemeral.isBlank()) {
            if (pod.getSpec() == null) {
                pod.setSpec(new PodSpec());
            }
            Container main = pod.getSpec().getContainers().stream().filter(c -> MAIN_CONTAINER.equals(c.getName()))
                    .findFirst().orElse(null);
            if (main == null) {
                main = new Container();
                main.setName(MAIN_CONTAINER);
                pod.getSpec().getContainers().add(main);
            }
            ResourceRequirements r = main.getResources() == null ? new ResourceRequirements() : main.getResources();
            Map<String, Quantity> limits = new LinkedHashMap<>(r.getLimits() == null ? Map.of() : r.getLimits());
            Map<String, Quantity> requests = new LinkedHashMap<>(r.getRequests() == null ? Map.of() : r.getRequests());
            limits.put(EPHEMERAL_STORAGE, Quantity.parse(ephemeral));
            requests.put(EPHEMERAL_STORAGE, Quantity.parse(ephemeral));
            r.setLimits(limits);
            r.setRequests(requests);
            main.setResources(r);
        }
        return pod;
    }

    private static void mergeInto(ObjectNode to, ObjectNode from) {
        for (var it = from.fields(); it.hasNext(); ) {
            var f = it.next();
            JsonNode old = to.get(f.getKey());
            if (old instanceof ObjectNode o && f.getValue() instanceof ObjectNode n) {
                mergeInto(o, n);
            } else if (old instanceof ArrayNode a && f.getValue() instanceof ArrayNode n) {
                for (int i = 0; i < n.size(); i++) {
                    if (i < a.size() && a.get(i) instanceof ObjectNode o && n.get(i) instanceof ObjectNode e) {
                        mergeInto(o, e);
                    } else if (i < a.size()) {
                        a.set(i, n.get(i).deepCopy());
                    } else {
                        a.add(n.get(i).deepCopy());
                    }
                }
            } else {
                to.set(f.getKey(), f.getValue().deepCopy());
            }
        }
    }

    private static void check(List<String> out, String what, boolean ok) {
        if (!ok) {
            out.add(what);
        }
    }

    /** The destinations of the Dockerfile's COPY instructions. */
    private static List<String> dockerfileDestinations() throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^COPY\\s+(?:--\\S+\\s+)*\\S+\\s+(\\S+)\\s*$")
                .matcher(Files.readString(DIR.resolve("Dockerfile")));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static ObjectNode read(String file) throws IOException {
        JsonNode n = YAML.readTree(DIR.resolve(file).toFile());
        return (ObjectNode) n;
    }

    private static ObjectNode job(ObjectNode d) {
        return (ObjectNode) d.get("spec").get("job");
    }

    private static ObjectNode conf(ObjectNode d) {
        return (ObjectNode) d.get("spec").get("flinkConfiguration");
    }

    private static ObjectNode container(ObjectNode d) {
        return (ObjectNode) d.get("spec").get("podTemplate").get("spec").withArray("containers").get(0);
    }

    private static ObjectNode podSpec(ObjectNode d) {
        return (ObjectNode) d.get("spec").get("podTemplate").get("spec");
    }

    private static ObjectNode podSecurity(ObjectNode d) {
        return (ObjectNode) podSpec(d).get("securityContext");
    }

    private static ObjectNode security(ObjectNode d) {
        return (ObjectNode) container(d).get("securityContext");
    }

    private static ObjectNode mount(ObjectNode d, String path) {
        for (JsonNode m : container(d).withArray("volumeMounts")) {
            if (path.equals(m.path("mountPath").asText())) {
                return (ObjectNode) m;
            }
        }
        throw new IllegalArgumentException("no mount at " + path);
    }

    private static ObjectNode secretVolume(ObjectNode d) {
        for (JsonNode v : podSpec(d).withArray("volumes")) {
            if (v.has("secret")) {
                return (ObjectNode) v.get("secret");
            }
        }
        throw new IllegalArgumentException("no secret volume");
    }

    private static void removeVolume(ObjectNode d, String name) {
        ArrayNode volumes = podSpec(d).withArray("volumes");
        for (int i = 0; i < volumes.size(); i++) {
            if (name.equals(volumes.get(i).path("name").asText())) {
                volumes.remove(i);
                return;
            }
        }
        throw new IllegalArgumentException("no volume " + name);
    }

    /** Sets the value following {@code option} in the job's arguments. */
    private static void setArg(ObjectNode d, String option, String value) {
        ArrayNode args = (ArrayNode) job(d).get("args");
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).asText().equals(option)) {
                args.set(i + 1, args.textNode(value));
                return;
            }
        }
        throw new IllegalArgumentException("no argument " + option);
    }

    /** Removes {@code option} and its value from the job's arguments. */
    private static void removeArg(ObjectNode d, String option) {
        ArrayNode args = (ArrayNode) job(d).get("args");
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).asText().equals(option)) {
                args.remove(i + 1);
                args.remove(i);
                return;
            }
        }
        throw new IllegalArgumentException("no argument " + option);
    }

    private static void removeMount(ObjectNode d, String path) {
        ArrayNode mounts = container(d).withArray("volumeMounts");
        for (int i = 0; i < mounts.size(); i++) {
            if (path.equals(mounts.get(i).path("mountPath").asText())) {
                mounts.remove(i);
                return;
            }
        }
        throw new IllegalArgumentException("no mount at " + path);
    }
}
