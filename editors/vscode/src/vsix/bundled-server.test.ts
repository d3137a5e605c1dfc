// The packaged extension brings its server (issue 12 §5): unpacks the platform .vsix the way
// VS Code installs it (file modes from the zip), resolves the server with the extension's own
// resolveServerPath — no setting, no NETBOX_LSP_PATH — and runs the LSP initialize handshake
// with the binary it finds. Run after packaging: `npm run test:vsix` (scripts/vscode-ci.sh),
// with NETBOX_LSP_VSIX naming the .vsix (default: netbox-lsp-<this platform>.vsix here).

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isFile, resolveServerPath } from "../config";

const root = path.join(__dirname, "..", "..");
const vsix =
  process.env.NETBOX_LSP_VSIX ?? path.join(root, `netbox-lsp-${process.platform}-${process.arch}.vsix`);

/** Extracts a zip with Python's zipfile, restoring each entry's Unix mode as VS Code does. */
function unzip(file: string, dest: string): void {
  const py = [
    "import os, sys, zipfile",
    "z = zipfile.ZipFile(sys.argv[1])",
    "for i in z.infolist():",
    "    p = z.extract(i, sys.argv[2])",
    "    m = (i.external_attr >> 16) & 0o777",
    "    if m: os.chmod(p, m)",
  ].join("\n");
  execFileSync("python3", ["-c", py, file, dest]);
}

/** Sends `initialize` on stdio and returns the result (LSP base protocol framing). */
function initialize(command: string): Promise<{ result: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, ["--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    let buf = Buffer.alloc(0);
    let stderr = "";
    let initResult: any;
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no initialize answer in 20 s; stderr: ${stderr}`));
    }, 20000);
    const send = (msg: object) => {
      const body = Buffer.from(JSON.stringify(msg), "utf8");
      child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
      child.stdin.write(body);
    };
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.stderr.on("data", (d) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const len = Number(/Content-Length: *(\d+)/i.exec(buf.subarray(0, end).toString())?.[1]);
        if (buf.length < end + 4 + len) return;
        const msg = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString("utf8"));
        buf = buf.subarray(end + 4 + len);
        if (msg.id === 1) {
          initResult = msg.result;
          send({ jsonrpc: "2.0", method: "initialized", params: {} });
          send({ jsonrpc: "2.0", id: 2, method: "shutdown" });
        } else if (msg.id === 2) {
          send({ jsonrpc: "2.0", method: "exit" });
          child.on("exit", () => {
            clearTimeout(timer);
            resolve({ result: initResult, stderr });
          });
        }
      }
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { processId: process.pid, rootUri: null, capabilities: {} },
    });
  });
}

test("the .vsix carries bin/netbox-lsp and the extension starts it with no setting", async () => {
  assert.ok(fs.existsSync(vsix), `no .vsix at ${vsix}: run scripts/vscode-ci.sh (or npm run package:target) first`);
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), "netbox-lsp-vsix-"));
  try {
    unzip(vsix, dest);
    const extensionPath = path.join(dest, "extension");
    const manifest = fs.readFileSync(path.join(dest, "extension.vsixmanifest"), "utf8");
    assert.match(manifest, /TargetPlatform="[a-z0-9]+-[a-z0-9]+"/, "a platform-specific package");
    const env = { ...process.env };
    delete env.NETBOX_LSP_PATH;
    const server = resolveServerPath({
      setting: "",
      env,
      extensionPath,
      platform: process.platform,
      isFile,
    });
    assert.equal(server.source, "bundled");
    assert.equal(server.command, path.join(extensionPath, "bin", process.platform === "win32" ? "netbox-lsp.exe" : "netbox-lsp"));
    const { result, stderr } = await initialize(server.command);
    assert.equal(result?.serverInfo?.name, "netbox-lsp", stderr);
    assert.ok(result.capabilities.hoverProvider, JSON.stringify(result.capabilities));
    assert.ok(result.capabilities.completionProvider, JSON.stringify(result.capabilities));
    assert.ok(result.capabilities.codeActionProvider, JSON.stringify(result.capabilities));
  } finally {
    fs.rmSync(dest, { recursive: true, force: true });
  }
});
