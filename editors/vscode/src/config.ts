// Pure functions of the extension: which server binary to start, and what the `netboxLsp` settings
// become on the wire. No `vscode` import here, so node's test runner can load this file as is.

import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The VS Code language ids the server is started for: every kind of file `netbox-lsp check`
 * reads (`.md`, `.py`, `.yaml`/`.yml`, `.json`, `.graphql`, `.txt` → `plaintext`).
 */
export const LANGUAGES = ["markdown", "python", "yaml", "json", "graphql", "plaintext", "shellscript"];

/**
 * Agent rule files the server reads as Markdown whatever language the editor gives them
 * (Cursor's `*.mdc` and `.cursorrules`, Windsurf's `.windsurfrules`), as a glob for the
 * documentSelector. Copilot's `*.instructions.md`, `*.prompt.md` and
 * `.github/copilot-instructions.md` are Markdown already.
 */
export const RULE_FILES = "**/{*.mdc,.cursorrules,.windsurfrules}";

/** Name of the server executable (on Windows `.exe` is appended). */
export const SERVER_NAME = "netbox-lsp";

/** Environment variable naming the server binary; used by tests and by people who build it themselves. */
export const SERVER_PATH_ENV = "NETBOX_LSP_PATH";

/** Where the chosen server path came from (shown in the output channel). */
export type ServerPathSource = "setting" | "env" | "bundled" | "path";

/** The server to start: an absolute path, or the bare command name to look up on `PATH`. */
export interface ServerPath {
  command: string;
  source: ServerPathSource;
}

/** What `resolveServerPath` needs to know about the machine; injected so tests need no real files. */
export interface ServerPathInputs {
  /** `netboxLsp.server.path`; empty or blank means unset. */
  setting?: string;
  /** The process environment (`NETBOX_LSP_PATH` is read from it; `HOME`/`USERPROFILE` for `~`). */
  env: Record<string, string | undefined>;
  /** The extension's install folder (holds `bin/netbox-lsp` in a platform-specific .vsix). */
  extensionPath: string;
  /** `process.platform`: decides the `.exe` suffix. */
  platform: string;
  /** First workspace folder's path, for `${workspaceFolder}` in the setting. */
  workspaceFolder?: string;
  /** Whether a file exists and is a file (only asked about the bundled binary). */
  isFile: (p: string) => boolean;
}

/**
 * Chooses the server binary, in this order: the `netboxLsp.server.path` setting, the
 * `NETBOX_LSP_PATH` environment variable, the binary bundled at `<extension>/bin/netbox-lsp[.exe]`,
 * then `netbox-lsp` on `PATH`. A setting or env value is taken as given (after `~` /
 * `${workspaceFolder}` expansion) even if the file is missing, so the user gets the start error for
 * the path they chose rather than a silent fallback.
 */
export function resolveServerPath(inputs: ServerPathInputs): ServerPath {
  const setting = nonEmpty(inputs.setting);
  if (setting !== undefined) {
    return { command: expandPath(setting, inputs.env, inputs.workspaceFolder), source: "setting" };
  }
  const fromEnv = nonEmpty(inputs.env[SERVER_PATH_ENV]);
  if (fromEnv !== undefined) {
    return { command: expandPath(fromEnv, inputs.env, inputs.workspaceFolder), source: "env" };
  }
  const exe = inputs.platform === "win32" ? `${SERVER_NAME}.exe` : SERVER_NAME;
  const bundled = path.join(inputs.extensionPath, "bin", exe);
  if (inputs.isFile(bundled)) {
    return { command: bundled, source: "bundled" };
  }
  return { command: exe, source: "path" };
}

/** Whether `p` is an existing regular file (what `resolveServerPath` asks about the bundled binary). */
export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The `netboxLsp.*` settings as read from the workspace configuration (all optional, any shape). */
export interface Settings {
  netboxVersion?: unknown;
  upgradeTo?: unknown;
  index?: unknown;
  graphqlSchema?: unknown;
  severity?: unknown;
  exclude?: unknown;
}

/**
 * What the server reads from `initializationOptions` and from `workspace/configuration` (section
 * `netboxLsp`). Keys are the same as `netbox-lsp.toml`'s, in snake_case; an unset key is absent so
 * the server's own defaults and `netbox-lsp.toml` apply.
 */
export interface ServerOptions {
  netbox_version?: string;
  /** A newer NetBox release to report upgrade findings for (`4.7`). */
  upgrade_to?: string;
  index?: string;
  graphql_schema?: string;
  /** Diagnostic code (e.g. `unknown-filter`) → `error` | `warning` | `information` | `hint` | `off`. */
  severity?: Record<string, string>;
  /** Glob patterns of files not to check. */
  exclude?: string[];
}

/**
 * Maps the VS Code settings to the server's options. Blank strings and wrongly typed values (a
 * hand-edited settings.json) are dropped rather than sent; paths get `~` and `${workspaceFolder}`
 * expanded; severity levels are lower-cased and blank ones dropped.
 */
export function toServerOptions(
  settings: Settings,
  env: Record<string, string | undefined> = {},
  workspaceFolder?: string,
): ServerOptions {
  const out: ServerOptions = {};
  const version = nonEmpty(settings.netboxVersion);
  if (version !== undefined) out.netbox_version = version;
  const upgradeTo = nonEmpty(settings.upgradeTo);
  if (upgradeTo !== undefined) out.upgrade_to = upgradeTo;
  const index = nonEmpty(settings.index);
  if (index !== undefined) out.index = expandPath(index, env, workspaceFolder);
  const schema = nonEmpty(settings.graphqlSchema);
  if (schema !== undefined) out.graphql_schema = expandPath(schema, env, workspaceFolder);
  if (isPlainObject(settings.severity)) {
    const severity: Record<string, string> = {};
    for (const [code, level] of Object.entries(settings.severity)) {
      const l = nonEmpty(level);
      if (code.trim() !== "" && l !== undefined) severity[code.trim()] = l.toLowerCase();
    }
    if (Object.keys(severity).length > 0) out.severity = severity;
  }
  if (Array.isArray(settings.exclude)) {
    const globs = settings.exclude.map(nonEmpty).filter((g): g is string => g !== undefined);
    if (globs.length > 0) out.exclude = globs;
  }
  return out;
}

/** The user-level (global) `netboxLsp.instance.*` values; workspace values are never passed in. */
export interface UserInstanceSettings {
  url?: unknown;
  tokenEnv?: unknown;
  tokenFile?: unknown;
}

/** `initializationOptions.instance` as the server reads it (blank values left out). */
export interface UserInstance {
  url?: string;
  tokenEnv?: string;
  tokenFile?: string;
}

/**
 * `{ instance }` for `initializationOptions` from the user's own settings: the URL with its token
 * source, or a token source alone (the server then asks before using a URL a workspace names).
 * Nothing set: `{}`, and the server makes no network request.
 */
export function toUserInstance(settings: UserInstanceSettings): { instance?: UserInstance } {
  const instance: UserInstance = {};
  const url = nonEmpty(settings.url);
  const tokenEnv = nonEmpty(settings.tokenEnv);
  const tokenFile = nonEmpty(settings.tokenFile);
  if (url !== undefined) instance.url = url;
  if (tokenEnv !== undefined) instance.tokenEnv = tokenEnv;
  if (tokenFile !== undefined) instance.tokenFile = tokenFile;
  return Object.keys(instance).length > 0 ? { instance } : {};
}

/** The user-level (global) `netboxLsp.live.*` values; workspace values are never passed in. */
export interface UserLiveSettings {
  enabled?: unknown;
  verifyOnSave?: unknown;
  maxRequests?: unknown;
  graphqlLimit?: unknown;
}

/** `initializationOptions.live` as the server reads it. */
export interface UserLive {
  enabled: true;
  verifyOnSave?: boolean;
  maxRequests?: number;
  graphqlLimit?: number;
}

/**
 * `{ live }` for `initializationOptions` from the user's own settings, only when they turn live
 * checks on (`enabled: true`); otherwise `{}` and the server sends nothing to NetBox for them.
 */
export function toUserLive(settings: UserLiveSettings): { live?: UserLive } {
  if (settings.enabled !== true) return {};
  const live: UserLive = { enabled: true };
  if (settings.verifyOnSave === true) live.verifyOnSave = true;
  const positive = (v: unknown): number | undefined =>
    typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
  const max = positive(settings.maxRequests);
  if (max !== undefined) live.maxRequests = max;
  const limit = positive(settings.graphqlLimit);
  if (limit !== undefined) live.graphqlLimit = limit;
  return { live };
}

/** Expands a leading `~` (home folder) and every `${workspaceFolder}`; other text is kept. */
export function expandPath(
  p: string,
  env: Record<string, string | undefined>,
  workspaceFolder?: string,
): string {
  let out = p;
  if (workspaceFolder !== undefined) out = out.split("${workspaceFolder}").join(workspaceFolder);
  const home = env.HOME ?? env.USERPROFILE;
  if (home !== undefined && (out === "~" || out.startsWith("~/") || out.startsWith("~\\"))) {
    out = home + out.slice(1);
  }
  return out;
}

function nonEmpty(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const t = v.trim();
  return t === "" ? undefined : t;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
