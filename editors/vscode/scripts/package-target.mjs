// Builds a platform-specific .vsix that carries the server: copies a built `netbox-lsp` binary to
// bin/netbox-lsp[.exe] and runs `vsce package --target <target>` (one .vsix per platform, as
// rust-analyzer and ruff publish them). The extension then starts that binary unless the user's
// `netboxLsp.server.path` (or NETBOX_LSP_PATH) names another (src/config.ts, resolveServerPath).
//
//   node scripts/package-target.mjs --binary ../../target/release/netbox-lsp [--target linux-x64] [--out FILE]
//
// --target defaults to this machine's platform; other targets take a binary built for them
// (e.g. `cargo build --release --target aarch64-unknown-linux-gnu`, then --target linux-arm64).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

// VS Code's platform targets (`vsce package --target`) for Node's platform and arch.
const TARGETS = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armhf",
  "darwin-x64": "darwin-x64",
  "darwin-arm64": "darwin-arm64",
  "win32-x64": "win32-x64",
  "win32-arm64": "win32-arm64",
};
const target = opt("--target") ?? TARGETS[`${process.platform}-${process.arch}`];
if (!target) {
  console.error(`package-target: no VS Code target for ${process.platform}-${process.arch}; pass --target`);
  process.exit(2);
}
const binary = opt("--binary");
if (!binary || !fs.statSync(binary, { throwIfNoEntry: false })?.isFile()) {
  console.error(`package-target: --binary must name the built netbox-lsp (got ${binary ?? "nothing"})`);
  process.exit(2);
}
const exe = target.startsWith("win32") ? "netbox-lsp.exe" : "netbox-lsp";
const out = opt("--out") ?? `netbox-lsp-${target}.vsix`;

fs.rmSync(path.join(here, "bin"), { recursive: true, force: true });
fs.mkdirSync(path.join(here, "bin"));
fs.copyFileSync(binary, path.join(here, "bin", exe));
fs.chmodSync(path.join(here, "bin", exe), 0o755); // vsce keeps the mode; VS Code restores it on install
const vsce = path.join(here, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
execFileSync(
  vsce,
  ["package", "--target", target, "--no-dependencies", "--allow-missing-repository", "--out", out],
  { cwd: here, stdio: "inherit" },
);
console.log(`package-target: ${out} (${target}, bin/${exe} from ${binary})`);
