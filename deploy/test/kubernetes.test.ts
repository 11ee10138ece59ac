/**
 * deploy/kubernetes (the kustomize base) and deploy/kubernetes-example (an overlay), rendered with
 * kubectl and checked against the Kubernetes API's schemas and what the deployment docs promise of them. No
 * cluster: static checks only.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SHUTDOWN_TIMEOUT_MS } from "@hub/process";
import { REPO_ROOT, render, schemaProblems, typeProblems, type KubernetesObject } from "./kubernetes-objects";

const base = render("deploy/kubernetes");
const example = render("deploy/kubernetes-example");

/** Each app's Deployment, its HTTP port's variable and port, and whether it scales on CPU. */
const APPS = {
  api: { deployment: "hub-api", portVariable: "PORT", port: 8000, autoscaled: true },
  dispatcher: { deployment: "hub-dispatcher", portVariable: "HUB_DISPATCHER_METRICS_PORT", port: 9464, autoscaled: true },
  "event-relay": { deployment: "hub-event-relay", portVariable: "HUB_RELAY_METRICS_PORT", port: 9465, autoscaled: false },
} as const;

// Variables whose value is a credential or carries one (a password in a URL). A rule about
// passwords (HUB_PASSWORD_MIN_LENGTH) is configuration, not a credential.
const SECRET_VARIABLE = /SECRET|PASSWORD(?!_MIN_LENGTH$)|TOKEN|_KEY$|^DATABASE_URL$|^REDIS_URL$|^REDIS_CLUSTER_NODES$|^HUB_ADMIN_EMAIL$/;

const find = (objects: KubernetesObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const podSpecs = (objects: KubernetesObject[]) =>
  objects.filter((o) => o.kind === "Deployment" || o.kind === "Job").map((o) => ({ owner: `${o.kind} ${o.metadata.name}`, spec: o.spec.template.spec }));
const allContainers = (objects: KubernetesObject[]) =>
  podSpecs(objects).flatMap(({ owner, spec }) => [...(spec.initContainers ?? []), ...spec.containers].map((container) => ({ owner, spec, container })));
const envOf = (container: { env?: { name: string; value?: string }[] }, name: string) => container.env?.find((variable) => variable.name === name);
/** Milliseconds in a Kubernetes quantity of CPU ("500m", "1") or bytes in one of memory ("320Mi"). */
const quantity = (value: string | number): number => {
  const text = String(value);
  const units: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, "": 1 };
  const match = /^([0-9.]+)(m|Ki|Mi|Gi|)$/.exec(text);
  if (!match) throw new Error(`unexpected quantity ${text}`);
  return Number(match[1]) * units[match[2]!]!;
};

describe.each([
  ["the base (deploy/kubernetes)", base],
  ["the example overlay (deploy/kubernetes-example)", example],
])("%s, rendered with kubectl", (_label, objects) => {
  it("when every object is validated against the Kubernetes API's schemas, then none has a problem", () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it("when every object is compiled against the API's types, then none has a field the API does not know or a wrong type", () => {
    expect(typeProblems(objects)).toEqual([]);
  });

  it("when the kinds are listed, then they are the API versions Kubernetes 1.25 serves (autoscaling/v2, policy/v1) and nothing else", () => {
    const kinds = new Set(objects.map((o) => `${o.apiVersion} ${o.kind}`));

    expect([...kinds].sort()).toEqual(
      [
        "apps/v1 Deployment",
        "autoscaling/v2 HorizontalPodAutoscaler",
        "batch/v1 Job",
        "networking.k8s.io/v1 NetworkPolicy",
        "policy/v1 PodDisruptionBudget",
        "v1 ConfigMap",
        "v1 Service",
      ].sort(),
    );
  });

  it.each(Object.entries(APPS))(
    "when the %s Deployment is read, then readiness is /readyz and liveness /healthz on the port the app serves them",
    (_app, app) => {
      const deployment = find(objects, "Deployment", app.deployment);
      const container = deployment?.spec.template.spec.containers[0];
      const port = container?.ports?.find((p: { name: string }) => p.name === container.readinessProbe?.httpGet?.port);

      expect(container?.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(container?.livenessProbe?.httpGet?.path).toBe("/healthz");
      expect(container?.livenessProbe?.httpGet?.port).toBe(container?.readinessProbe?.httpGet?.port);
      expect(port?.containerPort).toBe(app.port);
      expect(envOf(container, app.portVariable)?.value).toBe(String(app.port));
    },
  );

  it.each(Object.entries(APPS))("when the %s pods are read, then they are annotated for Prometheus to scrape /metrics on the app's port", (_app, app) => {
    const annotations = find(objects, "Deployment", app.deployment)?.spec.template.metadata.annotations;

    expect(annotations).toMatchObject({ "prometheus.io/scrape": "true", "prometheus.io/port": String(app.port), "prometheus.io/path": "/metrics" });
  });

  it("when every container (init containers and the Job's included) is read, then each requests and limits CPU and memory, requests within limits", () => {
    for (const { owner, container } of allContainers(objects)) {
      const { requests, limits } = container.resources ?? {};
      for (const resource of ["cpu", "memory"]) {
        expect(requests?.[resource], `${owner} ${container.name} requests.${resource}`).toBeDefined();
        expect(limits?.[resource], `${owner} ${container.name} limits.${resource}`).toBeDefined();
        expect(quantity(requests[resource]), `${owner} ${container.name} ${resource}`).toBeLessThanOrEqual(quantity(limits[resource]));
      }
    }
  });

  it("when every pod is read, then it runs as a numeric non-root user, and every container on a read-only root filesystem without privileges, with a writable /tmp", () => {
    for (const { owner, spec } of podSpecs(objects)) {
      expect(spec.securityContext?.runAsNonRoot, owner).toBe(true);
      expect(spec.securityContext?.runAsUser, owner).toBeGreaterThan(0);
      expect(spec.automountServiceAccountToken, owner).toBe(false);
    }
    for (const { owner, spec, container } of allContainers(objects)) {
      const name = `${owner} ${container.name}`;
      expect(container.securityContext, name).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
      const tmp = container.volumeMounts?.find((mount: { mountPath: string }) => mount.mountPath === "/tmp");
      expect(spec.volumes?.find((volume: { name: string }) => volume.name === tmp?.name)?.emptyDir, name).toBeDefined();
    }
  });

  it("when secrets are looked for, then there is no Secret object, and every credential is taken from a Secret by reference", () => {
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    for (const { owner, container } of allContainers(objects)) {
      for (const variable of container.env ?? []) {
        if (!SECRET_VARIABLE.test(variable.name)) continue;
        expect(variable.value, `${owner} ${container.name} ${variable.name}`).toBeUndefined();
        expect(variable.valueFrom?.secretKeyRef?.key, `${owner} ${container.name} ${variable.name}`).toBe(variable.name);
      }
      // A URL with user:password@ in a plain value would be a credential under another name.
      expect(JSON.stringify(container.env ?? []), `${owner} ${container.name}`).not.toMatch(/"value":"[a-z+]+:\/\/[^"]*@/);
    }
    for (const configMap of objects.filter((o) => o.kind === "ConfigMap")) {
      expect(
        Object.keys(configMap.data ?? {}).filter((key) => SECRET_VARIABLE.test(key)),
        configMap.metadata.name,
      ).toEqual([]);
    }
  });

  it("when every setting of the ConfigMap is looked up, then each is a variable docs/configuration.md documents", () => {
    const configuration = readFileSync(path.join(REPO_ROOT, "docs", "configuration.md"), "utf8");
    const settings = objects.filter((o) => o.kind === "ConfigMap").flatMap((o) => Object.keys(o.data ?? {}));

    expect(settings.length).toBeGreaterThan(0);
    expect(settings.filter((name) => !configuration.includes(`| \`${name}\` |`))).toEqual([]);
  });

  it("when the migrations are looked for, then a Job runs the migrate command once and every Deployment leaves them to it and waits for them", () => {
    const job = objects.find((o) => o.kind === "Job");
    const migrate = job?.spec.template.spec.containers[0];

    expect(migrate?.command).toEqual(["node", "--enable-source-maps", "dist/migrate.js"]);
    expect(job?.spec.template.spec.restartPolicy).toBe("Never");
    expect(envOf(migrate, "DATABASE_URL")).toMatchObject({ valueFrom: { secretKeyRef: { key: "DATABASE_URL" } } });
    for (const app of Object.values(APPS)) {
      const pod = find(objects, "Deployment", app.deployment)?.spec.template.spec;
      expect(envOf(pod.containers[0], "HUB_MIGRATE_ON_START")?.value, app.deployment).toBe("false");
      expect(
        pod.initContainers?.map((c: { command: string[] }) => c.command),
        app.deployment,
      ).toEqual([["node", "--enable-source-maps", "dist/migrate.js", "--wait"]]);
      expect(pod.initContainers[0].image, app.deployment).toBe(pod.containers[0].image);
    }
  });

  it("when a pod is asked to stop, then its grace period outlasts the longest drain: the preStop pause plus the apps' shutdown timeout", () => {
    for (const { owner, spec } of podSpecs(objects)) {
      const preStop = spec.containers[0].lifecycle?.preStop?.exec?.command;
      const pauseSeconds = preStop ? Number(preStop.at(-1)) : 0;
      expect(spec.terminationGracePeriodSeconds, owner).toBeGreaterThan(pauseSeconds + SHUTDOWN_TIMEOUT_MS / 1000);
    }
  });

  it("when the disruption budgets are read, then each Deployment has a policy/v1 one that selects its pods", () => {
    for (const app of Object.values(APPS)) {
      const podLabels = find(objects, "Deployment", app.deployment)?.spec.template.metadata.labels;
      const budget = objects.find(
        (o) => o.kind === "PodDisruptionBudget" && Object.entries(o.spec.selector.matchLabels).every(([key, value]) => podLabels?.[key] === value),
      );
      expect(budget?.apiVersion, app.deployment).toBe("policy/v1");
      expect(budget?.spec.maxUnavailable ?? budget?.spec.minAvailable, app.deployment).toBeDefined();
    }
  });

  it("when the autoscalers are read, then the API and the dispatchers scale on CPU with autoscaling/v2 from at least 2 replicas, and the Deployments leave the count to them", () => {
    const autoscaled = Object.values(APPS).filter((app) => app.autoscaled);
    const autoscalers = objects.filter((o) => o.kind === "HorizontalPodAutoscaler");

    expect(autoscalers.map((o) => o.spec.scaleTargetRef.name).sort()).toEqual(autoscaled.map((app) => app.deployment).sort());
    for (const autoscaler of autoscalers) {
      expect(autoscaler.apiVersion).toBe("autoscaling/v2");
      expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(autoscaler.spec.metrics).toContainEqual(expect.objectContaining({ type: "Resource", resource: expect.objectContaining({ name: "cpu" }) }));
      expect(find(objects, "Deployment", autoscaler.spec.scaleTargetRef.name)?.spec.replicas, autoscaler.metadata.name).toBeUndefined();
    }
  });

  it("when the network policies are read, then from outside the hub's pods only the API's HTTP port is admitted, and every pod is covered", () => {
    const policies = objects.filter((o) => o.kind === "NetworkPolicy");
    const labelsOf = (o: KubernetesObject) => o.spec.template.metadata.labels as Record<string, string>;
    const selects = (policy: KubernetesObject, labels: Record<string, string>) =>
      Object.entries(policy.spec.podSelector.matchLabels as Record<string, string>).every(([key, value]) => labels[key] === value);
    const hubPod = (peer: { podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: unknown; ipBlock?: unknown }) =>
      peer.podSelector?.matchLabels?.["app.kubernetes.io/name"] === "automation-hub" && peer.namespaceSelector === undefined && peer.ipBlock === undefined;
    /** What each policy admits from outside the hub's pods: `<pod labels' component>:<port>`, or "any" for no port list. */
    const admittedFromOutside = (labels: Record<string, string>) =>
      policies
        .filter((policy) => selects(policy, labels))
        .flatMap((policy) => policy.spec.ingress as Array<{ from?: Parameters<typeof hubPod>[0][]; ports?: Array<{ port: string | number }> }>)
        .filter((rule) => rule.from === undefined || !rule.from.every(hubPod))
        .flatMap((rule) => (rule.ports ?? [{ port: "any" }]).map((port) => String(port.port)));

    for (const deployment of objects.filter((o) => o.kind === "Deployment")) {
      const labels = labelsOf(deployment);
      expect(
        policies.some((policy) => selects(policy, labels) && policy.spec.policyTypes.includes("Ingress")),
        deployment.metadata.name,
      ).toBe(true);
      const ports = deployment.spec.template.spec.containers.flatMap((container: { ports?: Array<{ name: string }> }) => container.ports ?? []);
      const expected =
        labels["app.kubernetes.io/component"] === "api"
          ? ports.filter((port: { name: string }) => port.name === "http").map((port: { name: string }) => port.name)
          : [];
      expect(admittedFromOutside(labels), deployment.metadata.name).toEqual(expected);
    }
  });

  it("when the API's Service is read, then it selects the API's pods and targets their HTTP port", () => {
    const service = find(objects, "Service", "hub-api");
    const podTemplate = find(objects, "Deployment", "hub-api")?.spec.template;

    expect(Object.entries(service?.spec.selector ?? {}).every(([key, value]) => podTemplate.metadata.labels[key] === value)).toBe(true);
    expect(podTemplate.spec.containers[0].ports.map((p: { name: string }) => p.name)).toContain(service?.spec.ports[0].targetPort);
  });
});

describe("the kustomization files", () => {
  // What the kustomize of kubectl 1.20 (v2.0) understands, as the issue allows; `bases` is how that
  // version takes a directory (resources take files only there).
  const ALLOWED_FIELDS = ["resources", "bases", "commonLabels", "images", "patchesStrategicMerge", "patchesJson6902", "configMapGenerator", "secretGenerator"];

  it.each(["deploy/kubernetes", "deploy/kubernetes-example"])(
    "when %s/kustomization.yaml is read, then it uses only kustomize v2's fields, and generators only env files",
    (directory) => {
      const kustomization = parse(readFileSync(path.join(REPO_ROOT, directory, "kustomization.yaml"), "utf8")) as Record<string, unknown>;

      expect(Object.keys(kustomization).filter((field) => !ALLOWED_FIELDS.includes(field))).toEqual([]);
      for (const generator of [...((kustomization.configMapGenerator as object[]) ?? []), ...((kustomization.secretGenerator as object[]) ?? [])]) {
        expect(Object.keys(generator).filter((field) => !["name", "behavior", "env"].includes(field))).toEqual([]);
      }
    },
  );

  it("when the example overlay sets the images, then each of the apps' images gets a pinned tag", () => {
    const images = new Set(allContainers(example).map(({ container }) => container.image as string));

    expect([...images].sort()).toEqual([
      "registry.example.com/automation-hub/api:1.0.0",
      "registry.example.com/automation-hub/dispatcher:1.0.0",
      "registry.example.com/automation-hub/event-relay:1.0.0",
    ]);
  });
});
