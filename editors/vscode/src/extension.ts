// VS Code glue: starts `netbox-lsp --stdio` for the documents of config.ts LANGUAGES (markdown,
// python, yaml, json, graphql, plain text)
// and feeds it the `netboxLsp.*` settings. Decisions live in config.ts (unit-tested); this file
// only wires them to the vscode and vscode-languageclient APIs.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions as ClientServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import {
  isFile,
  LANGUAGES,
  RULE_FILES,
  resolveServerPath,
  toServerOptions,
  toUserInstance,
  toUserLive,
  type ServerOptions,
  type UserInstance,
  type UserLive,
} from "./config";

/** Settings section shared with the server (`workspace/configuration`). */
const SECTION = "netboxLsp";
// Notebook cells (`.ipynb` opened as a notebook) arrive as python / markdown documents.
const SCHEMES = ["file", "untitled", "vscode-notebook-cell"];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("NetBox LSP", { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("netboxLsp.restartServer", () => restart(context)),
    vscode.commands.registerCommand("netboxLsp.showOutput", () => output?.show(true)),
    // "Verify against NetBox" from the palette: the server's netbox-lsp.verify on the active
    // document, or on the call at the cursor (the code lenses call it with the call's range).
    vscode.commands.registerCommand("netboxLsp.verifyDocument", () => verify(false)),
    vscode.commands.registerCommand("netboxLsp.verifyCall", () => verify(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // Everything but the binary and the user-level instance and live settings is applied
      // live through didChangeConfiguration.
      if (
        e.affectsConfiguration(`${SECTION}.server.path`) ||
        e.affectsConfiguration(`${SECTION}.instance`) ||
        e.affectsConfiguration(`${SECTION}.live`)
      ) {
        void restart(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const server = resolveServerPath({
    setting: vscode.workspace.getConfiguration(SECTION).get<string>("server.path"),
    env: process.env,
    extensionPath: context.extensionPath,
    platform: process.platform,
    workspaceFolder: folder?.uri.fsPath,
    isFile,
  });
  output?.info(`Starting ${server.command} --stdio (server path from ${server.source})`);

  const serverOptions: ClientServerOptions = {
    command: server.command,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      ...LANGUAGES.flatMap((language) => SCHEMES.map((scheme) => ({ language, scheme }))),
      { scheme: "file", pattern: RULE_FILES },
    ],
    initializationOptions: { ...optionsFor(folder?.uri), ...userInstance(), ...userLive() },
    outputChannel: output,
    traceOutputChannel: output,
    middleware: {
      workspace: {
        // Answer the server's `netboxLsp` section in its own snake_case shape, per folder.
        configuration: async (params, token, next) => {
          const fallback = await next(params, token);
          if (!Array.isArray(fallback)) return fallback;
          return params.items.map((item, i) =>
            item.section === SECTION
              ? optionsFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
              : fallback[i],
          );
        },
        // Push the converted settings rather than VS Code's raw camelCase object.
        didChangeConfiguration: async () => {
          await client?.sendNotification(DidChangeConfigurationNotification.type, {
            settings: { [SECTION]: optionsFor(vscode.workspace.workspaceFolders?.[0]?.uri) },
          });
        },
      },
    },
    synchronize: { configurationSection: SECTION },
  };

  client = new LanguageClient("netboxLsp", "NetBox LSP", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    output?.error(`Could not start ${server.command}: ${message}`);
    void vscode.window
      .showErrorMessage(
        `NetBox LSP: could not start "${server.command}". Set netboxLsp.server.path or put netbox-lsp on PATH.`,
        "Open Settings",
      )
      .then((choice) => {
        if (choice) void vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.server.path`);
      });
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c?.isRunning()) await c.stop();
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  await stop();
  await start(context);
}

/** The `netboxLsp` settings for a resource (or the window), converted for the server. */
function optionsFor(scope: vscode.Uri | undefined): ServerOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION, scope);
  const folder = scope ? vscode.workspace.getWorkspaceFolder(scope) : vscode.workspace.workspaceFolders?.[0];
  return toServerOptions(
    {
      netboxVersion: cfg.get("netboxVersion"),
      upgradeTo: cfg.get("upgradeTo"),
      index: cfg.get("index"),
      graphqlSchema: cfg.get("graphqlSchema"),
      severity: cfg.get("severity"),
      exclude: cfg.get("exclude"),
    },
    process.env,
    folder?.uri.fsPath,
  );
}

/** Sends `netbox-lsp.verify` for the active document (or the call at its cursor). */
async function verify(atCursor: boolean): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor) return;
  const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
  const args: unknown[] = [uri];
  if (atCursor) {
    const at = client.code2ProtocolConverter.asPosition(editor.selection.active);
    args.push({ start: at, end: at });
  }
  await client.sendRequest(ExecuteCommandRequest.type, { command: "netbox-lsp.verify", arguments: args });
}

/** `live` for `initializationOptions`, from the user's own (global) settings only. */
function userLive(): { live?: UserLive } {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const user = (key: string): unknown => cfg.inspect(key)?.globalValue;
  return toUserLive({
    enabled: user("live.enabled"),
    verifyOnSave: user("live.verifyOnSave"),
    maxRequests: user("live.maxRequests"),
    graphqlLimit: user("live.graphqlLimit"),
  });
}

/**
 * `instance` for `initializationOptions`, from the user's own (global) settings only: a
 * workspace's settings never name the NetBox the token is sent to.
 */
function userInstance(): { instance?: UserInstance } {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const user = (key: string): unknown => cfg.inspect<string>(key)?.globalValue;
  return toUserInstance({
    url: user("instance.url"),
    tokenEnv: user("instance.tokenEnv"),
    tokenFile: user("instance.tokenFile"),
  });
}
