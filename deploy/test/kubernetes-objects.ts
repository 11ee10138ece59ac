/**
 * Renders a kustomization with kubectl and checks every object against the Kubernetes API's
 * schemas twice over:
 *
 * - the JSON schemas of `kubernetes-models` (Kubernetes 1.27's OpenAPI: types, required fields,
 *   enums), through each model's `validate()`;
 * - the same models' TypeScript declarations, by compiling the objects as typed object literals:
 *   the compiler's excess-property check refuses a field the API does not have (a misspelt
 *   `readinesProbe` would otherwise pass the schemas, which allow unknown fields, and be dropped
 *   by the API server).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Service } from "kubernetes-models/v1/Service";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";

export const DEPLOY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = path.resolve(DEPLOY_ROOT, "..");

/** Every kind the manifests may contain, by `apiVersion/kind`: all served by Kubernetes 1.25 and later. */
export const MODELS = {
  "v1/ConfigMap": { model: ConfigMap, module: "kubernetes-models/v1/ConfigMap", type: "IConfigMap" },
  "v1/Service": { model: Service, module: "kubernetes-models/v1/Service", type: "IService" },
  "networking.k8s.io/v1/NetworkPolicy": { model: NetworkPolicy, module: "kubernetes-models/networking.k8s.io/v1/NetworkPolicy", type: "INetworkPolicy" },
  "apps/v1/Deployment": { model: Deployment, module: "kubernetes-models/apps/v1/Deployment", type: "IDeployment" },
  "batch/v1/Job": { model: Job, module: "kubernetes-models/batch/v1/Job", type: "IJob" },
  "policy/v1/PodDisruptionBudget": { model: PodDisruptionBudget, module: "kubernetes-models/policy/v1/PodDisruptionBudget", type: "IPodDisruptionBudget" },
  "autoscaling/v2/HorizontalPodAutoscaler": {
    model: HorizontalPodAutoscaler,
    module: "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler",
    type: "IHorizontalPodAutoscaler",
  },
} as const;

// The rendered objects are plain JSON; the tests read them as loosely as that (any), after the
// schemas above have vouched for their shape.
export type KubernetesObject = { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: any };

/** The kubectl to render with: $KUBECTL, else `kubectl` on PATH (scripts/ensure-services.sh installs Debian's kubernetes-client for CI). */
export function kubectl(): string {
  const candidate = process.env.KUBECTL ?? "kubectl";
  try {
    execFileSync(candidate, ["version", "--client"], { stdio: "ignore" });
    return candidate;
  } catch {
    throw new Error(`no kubectl (${candidate}) to render the manifests with: apt-get install kubernetes-client, or set KUBECTL`);
  }
}

/** `kubectl kustomize <dir>` (relative to the repository), parsed. */
export function render(directory: string): KubernetesObject[] {
  const output = execFileSync(kubectl(), ["kustomize", path.join(REPO_ROOT, directory)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl's output is not YAML: ${document.errors[0]?.message}`);
    return document.toJS() as KubernetesObject;
  });
}

function modelOf(object: KubernetesObject) {
  const entry = MODELS[`${object.apiVersion}/${object.kind}` as keyof typeof MODELS];
  if (!entry)
    throw new Error(`${object.apiVersion} ${object.kind} ${object.metadata.name}: not a kind the manifests should hold (${Object.keys(MODELS).join(", ")})`);
  return entry;
}

/** Problems the JSON schemas find, one line per object that has any. */
export function schemaProblems(objects: KubernetesObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    try {
      new (modelOf(object).model)(object as never).validate();
    } catch (error) {
      problems.push(`${object.kind} ${object.metadata.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

/**
 * Fields the API does not have, and wrong types: compiles `const o<i>: I<Kind> = <object>;` for
 * every object and answers the compiler's complaints, each naming its object.
 */
export function typeProblems(objects: KubernetesObject[]): string[] {
  const fileName = path.join(DEPLOY_ROOT, "test", "__rendered_objects__.ts");
  const entries = objects.map(modelOf);
  const imports = [...new Set(entries.map((entry) => `import type { ${entry.type} } from "${entry.module}";`))];
  const declarations = objects.map((object, index) => `const o${index}: ${entries[index]!.type} = ${JSON.stringify(object)};\nvoid o${index};`);
  const source = [...imports, ...declarations].join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  host.fileExists = (name) => name === fileName || ts.sys.fileExists(name);
  host.getSourceFile = (name, languageVersion, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, languageVersion) : getSourceFile(name, languageVersion, ...rest);
  const program = ts.createProgram([fileName], options, host);
  const firstDeclarationLine = imports.length;
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line;
    const object = objects[Math.floor((line - firstDeclarationLine) / 2)];
    return object ? `${object.kind} ${object.metadata.name}: ${message}` : message;
  });
}
