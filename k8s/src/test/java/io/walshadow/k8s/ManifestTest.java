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
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.Secret;
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
import java.util.Map;
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
 * password, passwords from the Secret's keys, resources. And the security defaults, on the JobManager's and the
 * TaskManagers' pods as the operator builds them: the image's non-root flink user, a read-only root filesystem with
 * a writable volume under every directory Flink writes to, no privilege escalation or capabilities, the runtime's
 * seccomp profile, ephemeral-storage requests and limits, Kubernetes HA on the claim, secrets only through
 * secretKeyRef or read-only mounts. Broken copies of the manifest must each be caught.
 */
class ManifestTest {
    private static final Path DIR = Path.of(System.getProperty("walshadow.k8s.dir", ".")).toAbsolutePath();
    /** The flink user and group of Flink's images ({@code groupadd --gid 9999 flink; useradd --uid 9999}). */
    private static final long FLINK_UID = 9999;
    private static final String MAIN_CONTAINER = "flink-main-container";
    private static final String EPHEMERAL_STORAGE = "ephemeral-storage";
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
        // high availability
        assertCaught("high-availability.type", d -> conf(d).remove("high-availability.type"));
        assertCaught("high-availability.storageDir", d -> conf(d).put("high-availability.storageDir",
                "file:///tmp/ha"));
        assertCaught("serviceAccount", d -> ((ObjectNode) d.get("spec")).remove("serviceAccount"));
        // secrets
        assertCaught("env WALSHADOW_PG_PASSWORD from a secretKeyRef", d -> {
            ObjectNode e = (ObjectNode) container(d).withArray("env").get(0);
            e.remove("valueFrom");
            e.put("value", "hunter2");
        });
        assertCaught("env EXTRA_TOKEN", d -> container(d).withArray("env").addObject()
                .put("name", "EXTRA_TOKEN").put("value", "hunter2"));
        assertCaught(JobConfig.CH_PASSWORD_KEY, d -> conf(d).put(JobConfig.CH_PASSWORD_KEY, "hunter2"));
        assertCaught("secret volume credentials", d -> {
            podSpec(d).withArray("volumes").addObject().put("name", "credentials").putObject("secret")
                    .put("secretName", "walshadow-credentials");
            container(d).withArray("volumeMounts").addObject().put("name", "credentials")
                    .put("mountPath", "/etc/walshadow");
        });
    }

    @Test
    void aSecretMountedReadOnlyAndPrivatePasses() throws Exception {
        ObjectNode d = read("walshadow.yaml");
        podSpec(d).withArray("volumes").addObject().put("name", "credentials").putObject("secret")
                .put("secretName", "walshadow-credentials").put("defaultMode", 0440);
        container(d).withArray("volumeMounts").addObject().put("name", "credentials")
                .put("mountPath", "/etc/walshadow").put("readOnly", true);
        List<String> problems = problems(d);
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
        check(out, "high-availability.type kubernetes (a JobManager that dies comes back with the job and its last"
                + " checkpoint)", "kubernetes".equals(conf.get("high-availability.type")));
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
                    Integer mode = v.getSecret().getDefaultMode();
                    check(out, who + "secret volume " + v.getName() + " mounted readOnly, defaultMode without access for"
                            + " others (0440: the flink group reads it)", Boolean.TRUE.equals(m.getReadOnly())
                            && mode != null && (mode & 07) == 0);
                }
            }
        }

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
