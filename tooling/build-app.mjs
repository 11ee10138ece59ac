// Bundles one app (src/main.ts) into dist/main.js for production, and beside it the `migrate`
// command (@hub/db's migrate-cli.ts) into dist/migrate.js, so every app's image can run the
// migrations once per release (the Kubernetes Job does: `node dist/migrate.js`). Workspace packages
// (@hub/*) are inlined because they ship TypeScript source; third-party packages stay external and
// are loaded from node_modules at run time. An app's own commands are bundled too, named in its
// package.json's "hubBundles" ({"reset-password": "src/identity/reset-password-cli.ts"} → dist/reset-password.js).
// Directories named in "hubAssets" are copied into dist ({"console": "../console/dist"} → dist/console,
// which the API serves; turbo.json builds the console first), so the deployed app carries them.
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

// esbuild is a devDependency of each app, not of the root: resolve it from the app being built.
const appRequire = createRequire(path.join(process.cwd(), "package.json"));
const { build } = await import(pathToFileURL(appRequire.resolve("esbuild")).href);

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const external = Object.keys(pkg.dependencies ?? {}).filter((name) => !name.startsWith("@hub/"));
for (const workspaceDep of Object.keys(pkg.dependencies ?? {}).filter((n) => n.startsWith("@hub/"))) {
  const depPkg = JSON.parse(readFileSync(`node_modules/${workspaceDep}/package.json`, "utf8"));
  external.push(...Object.keys(depPkg.dependencies ?? {}).filter((name) => !name.startsWith("@hub/")));
}

await build({
  entryPoints: { main: "src/main.ts", migrate: appRequire.resolve("@hub/db/migrate-cli"), ...(pkg.hubBundles ?? {}) },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  // Code splitting keeps each dynamic import() a file of its own, loaded when it runs: main.ts
  // starts tracing before it imports the rest, and that order must survive bundling (one file
  // would hoist every external import — express, pg, ioredis — above the tracing start-up).
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  target: "node20",
  sourcemap: true,
  external: [...new Set(external)],
  banner: {
    // Bundled CommonJS dependencies of workspace packages may call require().
    js: "import { createRequire as __hubCreateRequire } from 'node:module'; const require = __hubCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});

for (const [name, source] of Object.entries(pkg.hubAssets ?? {})) {
  const target = path.join("dist", name);
  rmSync(target, { recursive: true, force: true });
  if (existsSync(source)) cpSync(source, target, { recursive: true });
  else console.warn(`build-app: ${source} does not exist (not built?); dist/${name} left out`);
}
