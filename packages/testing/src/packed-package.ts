/**
 * A workspace package as its users get it: built, packed with `pnpm pack` (which rewrites
 * `workspace:` and `catalog:` versions and applies `publishConfig`), and installed from the
 * tarball into a fresh project in a temporary directory outside the workspace, where nothing of
 * the repository can be resolved by accident.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository's pnpm (`packageManager`), so corepack runs the same one outside the workspace. */
const PACKAGE_MANAGER = (JSON.parse(readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url)), "utf8")) as { packageManager: string })
  .packageManager;

export interface InstalledPackage {
  /** The project it is installed in: run `node` here, or `node_modules/.bin/<bin>`. */
  projectDir: string;
  /** Where the package landed: `<projectDir>/node_modules/<name>`. */
  packageDir: string;
  remove(): void;
}

/**
 * Packs (its `prepack` script builds it) and installs the package in `sourceDir` into a new temporary
 * project. Dependencies come from pnpm's store when it has them, else from the registry.
 */
export async function packAndInstall(sourceDir: string, packageName: string): Promise<InstalledPackage> {
  const root = mkdtempSync(path.join(tmpdir(), "hub-packed-"));
  try {
    const packs = path.join(root, "packs");
    await run("pnpm", ["pack", "--pack-destination", packs], { cwd: sourceDir });
    const [tarball] = readdirSync(packs).filter((file) => file.endsWith(".tgz"));
    if (!tarball) throw new Error(`pnpm pack left no tarball in ${packs}`);
    const projectDir = path.join(root, "project");
    mkdirSync(projectDir);
    writeFileSync(path.join(projectDir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module", packageManager: PACKAGE_MANAGER }));
    await run("pnpm", ["add", "--prefer-offline", "--ignore-workspace", path.join(packs, tarball)], { cwd: projectDir });
    return { projectDir, packageDir: path.join(projectDir, "node_modules", packageName), remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
