// Unit tests of the pure settings logic, run by node's test runner (`npm test`); no VS Code needed.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { expandPath, resolveServerPath, toServerOptions, toUserInstance, toUserLive, type ServerPathInputs } from "../config";

const EXT = path.join("/opt", "ext");
const BUNDLED = path.join(EXT, "bin", "netbox-lsp");

function inputs(over: Partial<ServerPathInputs>): ServerPathInputs {
  return { env: {}, extensionPath: EXT, platform: "linux", isFile: () => false, ...over };
}

test("server path: the setting wins over env, bundled and PATH", () => {
  const got = resolveServerPath(
    inputs({ setting: "/usr/local/bin/netbox-lsp", env: { NETBOX_LSP_PATH: "/env/netbox-lsp" }, isFile: () => true }),
  );
  assert.deepEqual(got, { command: "/usr/local/bin/netbox-lsp", source: "setting" });
});

test("server path: a blank setting falls through to NETBOX_LSP_PATH", () => {
  const got = resolveServerPath(inputs({ setting: "   ", env: { NETBOX_LSP_PATH: "/env/netbox-lsp" }, isFile: () => true }));
  assert.deepEqual(got, { command: "/env/netbox-lsp", source: "env" });
});

test("server path: the bundled binary when no setting or env, only if it exists", () => {
  const seen: string[] = [];
  const got = resolveServerPath(
    inputs({
      env: { NETBOX_LSP_PATH: "" },
      isFile: (p) => {
        seen.push(p);
        return p === BUNDLED;
      },
    }),
  );
  assert.deepEqual(got, { command: BUNDLED, source: "bundled" });
  assert.deepEqual(seen, [BUNDLED]);
});

test("server path: netbox-lsp on PATH last; .exe on Windows", () => {
  assert.deepEqual(resolveServerPath(inputs({})), { command: "netbox-lsp", source: "path" });
  assert.deepEqual(resolveServerPath(inputs({ platform: "win32" })), { command: "netbox-lsp.exe", source: "path" });
  const exe = path.join(EXT, "bin", "netbox-lsp.exe");
  assert.deepEqual(resolveServerPath(inputs({ platform: "win32", isFile: (p) => p === exe })), {
    command: exe,
    source: "bundled",
  });
});

test("server path: ~ and ${workspaceFolder} are expanded in the setting and env", () => {
  assert.equal(
    resolveServerPath(inputs({ setting: "~/bin/netbox-lsp", env: { HOME: "/home/u" } })).command,
    "/home/u/bin/netbox-lsp",
  );
  assert.equal(
    resolveServerPath(inputs({ env: { NETBOX_LSP_PATH: "${workspaceFolder}/target/release/netbox-lsp" }, workspaceFolder: "/ws" }))
      .command,
    "/ws/target/release/netbox-lsp",
  );
});

test("options: empty settings give an empty object (server defaults apply)", () => {
  assert.deepEqual(toServerOptions({}), {});
  assert.deepEqual(
    toServerOptions({ netboxVersion: "", index: " ", graphqlSchema: "", severity: {}, exclude: [] }),
    {},
  );
});

test("options: every key maps to the server's snake_case name", () => {
  const got = toServerOptions(
    {
      netboxVersion: "4.3",
      upgradeTo: "4.7",
      index: "/idx/netbox.idx",
      graphqlSchema: "/s/schema.graphql",
      severity: { "unknown-filter": "Warning", "graphql-pagination": "off" },
      exclude: ["vendor/**", "**/*.generated.md"],
    },
    {},
  );
  assert.deepEqual(got, {
    netbox_version: "4.3",
    upgrade_to: "4.7",
    index: "/idx/netbox.idx",
    graphql_schema: "/s/schema.graphql",
    severity: { "unknown-filter": "warning", "graphql-pagination": "off" },
    exclude: ["vendor/**", "**/*.generated.md"],
  });
});

test("options: paths expand ~ and ${workspaceFolder}; the version is not a path", () => {
  const got = toServerOptions(
    { netboxVersion: "~4.3", index: "${workspaceFolder}/netbox.idx", graphqlSchema: "~/schema.graphql" },
    { HOME: "/home/u" },
    "/ws",
  );
  assert.deepEqual(got, { netbox_version: "~4.3", index: "/ws/netbox.idx", graphql_schema: "/home/u/schema.graphql" });
});

test("options: wrongly typed values from a hand-edited settings.json are dropped", () => {
  const got = toServerOptions({
    netboxVersion: 4.3,
    upgradeTo: 4.7,
    index: ["a"],
    graphqlSchema: null,
    severity: ["unknown-filter"],
    exclude: "vendor/**",
  });
  assert.deepEqual(got, {});
  const partly = toServerOptions({ severity: { "unknown-filter": 1, "  ": "error", ok: " hint " }, exclude: ["a", 2, " "] });
  assert.deepEqual(partly, { severity: { ok: "hint" }, exclude: ["a"] });
});

test("expandPath: only a leading ~ is the home folder", () => {
  assert.equal(expandPath("a/~/b", { HOME: "/h" }), "a/~/b");
  assert.equal(expandPath("~", { HOME: "/h" }), "/h");
  assert.equal(expandPath("~user/x", { HOME: "/h" }), "~user/x");
  assert.equal(expandPath("~/x", {}), "~/x");
  assert.equal(expandPath("~\\x", { USERPROFILE: "C:\\Users\\u" }), "C:\\Users\\u\\x");
});

test("user instance: URL with its token source; blank and wrongly typed values dropped", () => {
  assert.deepEqual(toUserInstance({ url: " https://netbox.example.com ", tokenEnv: "NETBOX_TOKEN", tokenFile: "" }), {
    instance: { url: "https://netbox.example.com", tokenEnv: "NETBOX_TOKEN" },
  });
  assert.deepEqual(toUserInstance({ url: 42, tokenFile: "~/.config/netbox-lsp/token" }), {
    instance: { tokenFile: "~/.config/netbox-lsp/token" },
  });
});

test("user instance: a token source alone is passed (for a workspace URL the user allows)", () => {
  assert.deepEqual(toUserInstance({ tokenEnv: "NETBOX_TOKEN" }), { instance: { tokenEnv: "NETBOX_TOKEN" } });
});

test("user instance: nothing set gives no instance (no network access)", () => {
  assert.deepEqual(toUserInstance({}), {});
  assert.deepEqual(toUserInstance({ url: "  ", tokenEnv: undefined }), {});
});

test("user live: only an explicit `enabled: true` turns live checks on", () => {
  assert.deepEqual(toUserLive({}), {});
  assert.deepEqual(toUserLive({ enabled: false, verifyOnSave: true }), {});
  assert.deepEqual(toUserLive({ enabled: "true" }), {});
  assert.deepEqual(toUserLive({ enabled: true }), { live: { enabled: true } });
});

test("user live: options kept when valid, dropped otherwise", () => {
  assert.deepEqual(toUserLive({ enabled: true, verifyOnSave: true, maxRequests: 50, graphqlLimit: 20 }), {
    live: { enabled: true, verifyOnSave: true, maxRequests: 50, graphqlLimit: 20 },
  });
  assert.deepEqual(toUserLive({ enabled: true, maxRequests: 0, graphqlLimit: -1, verifyOnSave: "yes" }), {
    live: { enabled: true },
  });
});
