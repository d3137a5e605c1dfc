// The extension manifest's security-relevant declarations (issue 9 §7): a repository cannot
// choose the program the extension starts, and untrusted-workspace behaviour is declared.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));

test("manifest: netboxLsp.server.path is machine-scoped (not settable by a workspace)", () => {
  const prop = manifest.contributes.configuration.properties["netboxLsp.server.path"];
  assert.equal(prop.scope, "machine");
});

test("manifest: untrusted workspaces are declared, with the path settings restricted", () => {
  const u = manifest.capabilities.untrustedWorkspaces;
  assert.equal(u.supported, "limited");
  assert.ok(u.description.length > 0);
  for (const key of ["netboxLsp.index", "netboxLsp.graphqlSchema"]) {
    assert.ok(u.restrictedConfigurations.includes(key), key);
  }
});

test("manifest: the extension activates for every language it starts the server for (plain text too)", () => {
  // LANGUAGES is the documentSelector of extension.ts; `check` reads .txt, so plaintext is in it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { LANGUAGES } = require("../config") as { LANGUAGES: string[] };
  assert.ok(LANGUAGES.includes("plaintext"));
  assert.deepEqual(
    [...manifest.activationEvents].sort(),
    LANGUAGES.map((l) => `onLanguage:${l}`).sort(),
  );
});

test("manifest: the instance settings are user-level only and the rebuild command is in the palette", () => {
  for (const key of ["netboxLsp.instance.url", "netboxLsp.instance.tokenEnv", "netboxLsp.instance.tokenFile"]) {
    assert.equal(manifest.contributes.configuration.properties[key].scope, "application", key);
  }
  const commands = manifest.contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(commands.includes("netbox-lsp.rebuildIndex"), commands.join(", "));
});

test("manifest: the live-check settings are user-level only and the verify commands are in the palette", () => {
  for (const key of ["netboxLsp.live.enabled", "netboxLsp.live.verifyOnSave", "netboxLsp.live.maxRequests", "netboxLsp.live.graphqlLimit"]) {
    assert.equal(manifest.contributes.configuration.properties[key].scope, "application", key);
  }
  assert.equal(manifest.contributes.configuration.properties["netboxLsp.live.enabled"].default, false);
  const commands = manifest.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ["netboxLsp.verifyDocument", "netboxLsp.verifyCall"]) {
    assert.ok(commands.includes(c), commands.join(", "));
  }
});
