package io.walshadow.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.walshadow.job.JobConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * password, passwords from the Secret's keys, resources. Broken copies of the manifest must each be caught.
 */
class ManifestTest {
    private static final Path DIR = Path.of(System.getProperty("walshadow.k8s.dir", ".")).toAbsolutePath();
    /** As the operator reads it, but an enum constant this (older, 1.10) model lacks reads as null, checked apart. */
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
        assertCaught("--clickhouse.url", d -> {
            ArrayNode args = (ArrayNode)
                    job(d).get("args");
            for (int i = 0; i < args.size(); i++) {
                if (args.get(i).asText().equals("--clickhouse.url")) {
                    args.set(i + 1, args.textNode("clickhouse:8443"));
                }
            }
        });
        assertCaught("password", d -> ((ArrayNode) job(d).get("args"))
                .add("--pg.password").add("hunter2"));
        assertCaught("WALSHADOW_CH_PASSWORD", d -> container(d).withArray("env").remove(1));
        assertCaught("secret key", d -> ((ObjectNode) container(d).withArray("env").get(0).get("valueFrom")
                .get("secretKeyRef")).put("key", "password"));
        assertCaught("flinkVersion", d -> ((ObjectNode) d.get("spec")).put("flinkVersion", "v1_20"));
        assertCaught("memory", d -> ((ObjectNode) d.get("spec").get("taskManager").get("resource")).remove("memory"));
        assertCaught("claimName", d -> ((ObjectNode) d.get("spec").get("podTemplate").get("spec").withArray("volumes")
                .get(0).get("persistentVolumeClaim")).put("claimName", "other"));
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
        check(out, "job.args hold no password (they show in the web UI): " + Arrays.toString(args),
                Arrays.stream(args).noneMatch(a -> a.toLowerCase(java.util.Locale.ROOT).contains("password")));
        try {
            JobConfig.from(args, Map.of(JobConfig.PG_PASSWORD_ENV, "x", JobConfig.CH_PASSWORD_ENV, "x"))
                    .requireClickHouse();
        } catch (IllegalArgumentException e) {
            out.add("job.args rejected by the job: " + e.getMessage());
        }

        Map<String, String> conf = spec.getFlinkConfiguration() == null ? Map.of() : spec.getFlinkConfiguration();
        check(out, "state backend rocksdb (state.backend.type)", "rocksdb".equals(conf.get("state.backend.type")));
        check(out, "incremental checkpoints (execution.checkpointing.incremental: true)",
                "true".equals(conf.get("execution.checkpointing.incremental")));
        check(out, "retention RETAIN_ON_CANCELLATION (execution.checkpointing.externalized-checkpoint-retention)",
                "RETAIN_ON_CANCELLATION".equals(conf.get("execution.checkpointing.externalized-checkpoint-retention")));

        Container main = spec.getPodTemplate() == null ? null : spec.getPodTemplate().getSpec().getContainers().stream()
                .filter(c -> "flink-main-container".equals(c.getName())).findFirst().orElse(null);
        check(out, "podTemplate container flink-main-container", main != null);
        if (main != null) {
            Secret secret = YAML.treeToValue(read("secret.example.yaml"), Secret.class);
            for (String var : List.of(JobConfig.PG_PASSWORD_ENV, JobConfig.CH_PASSWORD_ENV)) {
                EnvVar e = main.getEnv().stream().filter(v -> var.equals(v.getName())).findFirst().orElse(null);
                check(out, "env " + var + " from a secretKeyRef", e != null && e.getValue() == null
                        && e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null);
                if (e != null && e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                    var ref = e.getValueFrom().getSecretKeyRef();
                    check(out, "env " + var + ": secret key " + ref.getName() + "/" + ref.getKey()
                                    + " exists in secret.example.yaml",
                            secret.getMetadata().getName().equals(ref.getName())
                                    && secret.getStringData().containsKey(ref.getKey()));
                }
            }
            // both state directories on the mounted claim of storage.yaml
            PersistentVolumeClaim claim = YAML.treeToValue(read("storage.yaml"), PersistentVolumeClaim.class);
            List<Volume> volumes = spec.getPodTemplate().getSpec().getVolumes();
            for (String key : List.of("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir")) {
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
        return out;
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
}
