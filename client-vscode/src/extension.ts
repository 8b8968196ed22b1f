// Entry point: wires the server, the status item, the commands and the restart triggers.
import * as vscode from 'vscode';
import { State } from 'vscode-languageclient/node';
import { registerCommands } from './commands';
import { STATUS } from './constants';
import * as debug from './debug';
import * as preview from './preview';
import { isKeySecret } from './secrets';
import { HealServer } from './server';
import { SECTION } from './settings';
import { StatusItem } from './status';
import { HealTests } from './testing';
import { StatusPayload } from './wire';

/** What activate() returns: lets tests and other extensions look inside. */
export interface HealApi {
  server: HealServer;
  status: StatusItem;
  /** The Testing view's controller and what it shows per test. */
  tests: HealTests;
  /** Fixes waiting in the refactor preview (heal.previewFixes). */
  pendingPreviews(): number;
  /** The last debugpy attach configuration the extension asked VS Code to start. */
  lastAttach(): vscode.DebugConfiguration | undefined;
}

export async function activate(context: vscode.ExtensionContext): Promise<HealApi> {
  const output = vscode.window.createOutputChannel('Heal', { log: true });
  const status = new StatusItem();
  const server = new HealServer(context, output, (client) => {
    preview.handleApplyEdit(client, output);
    client.onNotification(STATUS, (params: StatusPayload) => status.update(params));
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped) {
        status.serverStopped();
      }
    });
  });
  const tests = new HealTests(server);
  context.subscriptions.push(output, status, server, tests);
  registerCommands(context, server);
  watchRestartTriggers(context, server);
  await server.start().catch((err: unknown) => {
    output.error(`the server did not start: ${String(err)}`);
    void vscode.window
      .showErrorMessage(`Heal: the server did not start with ${server.interpreter}.`, 'Show Logs')
      .then((choice) => choice && output.show());
  });
  return {
    server,
    status,
    tests,
    pendingPreviews: () => preview.pendingPreviews,
    lastAttach: () => debug.lastAttach,
  };
}

export function deactivate(): Promise<void> | undefined {
  return undefined; // the HealServer is disposed with the context's subscriptions
}

/** Restart only when what the server process is made of changes: interpreter or API keys. */
function watchRestartTriggers(context: vscode.ExtensionContext, server: HealServer): void {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.interpreter`)) {
        void server.restart('heal.interpreter changed');
      }
    }),
    context.secrets.onDidChange((event) => {
      if (isKeySecret(event.key)) {
        void server.restart('an API key changed');
      }
    }),
  );
}
