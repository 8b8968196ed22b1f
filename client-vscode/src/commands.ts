// Palette commands (category "Heal"), registered as paletteId(name). Their ids differ from the
// server's heal.* commands, which vscode-languageclient registers by itself.
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import {
  DEBUG_TEST,
  FAILURES,
  HEAL_FAILING_TEST,
  LOAD_REPORT,
  PaletteCommand,
  paletteId,
  RERUN_FAILED,
  RUN_SCRIPT,
  RUN_TESTS,
} from './constants';
import { attachDebugger, isDebugTarget } from './debug';
import { isKeyProvider, KeyProvider, PROVIDERS, storeKey } from './secrets';
import { HealServer } from './server';
import { FailureInfo, FailuresPayload } from './wire';

/** A test id, `{test}`, or a test item of the Testing view (its id is the test's node id). */
type TestArg = string | { test?: string } | vscode.TestItem | undefined;

export function registerCommands(context: vscode.ExtensionContext, server: HealServer): void {
  const commands: Record<PaletteCommand, (...args: never[]) => unknown> = {
    healFailingTest: (arg: TestArg) => healFailingTest(server, arg),
    runTests: () => serverCommand(server, RUN_TESTS, []),
    rerunFailed: () => serverCommand(server, RERUN_FAILED, []),
    runScript: (uri?: vscode.Uri) => runScript(server, uri),
    debugTest: (arg: TestArg) => debugTest(server, arg),
    loadReport: (uri?: vscode.Uri) => loadReport(server, uri),
    setApiKey: (arg?: { provider?: string; key?: string }) => setApiKey(context, arg),
    showLogs: () => server.output.show(),
    restart: () => server.restart('Heal: Restart Server'),
  };
  for (const [name, handler] of Object.entries(commands)) {
    const id = paletteId(name as PaletteCommand);
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  }
}

/**
 * Run a server command. The heal and run commands report their own cancellable work-done
 * progress from the server (its cancel stops the real work), so they get no `title`; the
 * others get a client-side progress notification whose cancel cancels the request.
 */
export async function serverCommand(
  server: HealServer,
  command: string,
  args: unknown[],
  title?: string,
  token?: vscode.CancellationToken,
): Promise<unknown> {
  await server.ready(); // a command run while the server starts waits for it
  const client = server.client;
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage('Heal: the server is not running (Heal: Show Logs).');
    return undefined;
  }
  const params = { command, arguments: args };
  if (title === undefined) {
    return client.sendRequest(ExecuteCommandRequest.type, params, token);
  }
  const options = { location: vscode.ProgressLocation.Notification, title, cancellable: true };
  return vscode.window.withProgress(options, (_progress, token) =>
    client.sendRequest(ExecuteCommandRequest.type, params, token),
  );
}

export async function listFailures(server: HealServer): Promise<FailureInfo[]> {
  await server.ready();
  const result = await server.client?.sendRequest<FailuresPayload>(FAILURES, {});
  return result?.failures ?? [];
}

/** The failure named by `arg`, the only one there is, or the one the user picks. */
async function pickFailure(server: HealServer, arg: TestArg, healableOnly: boolean) {
  const wanted = typeof arg === 'string' ? arg : arg && 'id' in arg ? arg.id : arg?.test;
  const failures = (await listFailures(server)).filter((f) => f.healable || !healableOnly);
  if (wanted) {
    return failures.find((f) => f.test === wanted || f.id === wanted) ?? ({ test: wanted } as FailureInfo);
  }
  if (failures.length <= 1) {
    if (!failures.length) {
      void vscode.window.showInformationMessage('Heal: no failing tests. Run Heal: Run Tests first.');
    }
    return failures[0];
  }
  const items = failures.map((failure) => ({
    label: failure.suspect ? `$(symbol-function) ${failure.suspect.qualname}` : failure.id,
    description: `${failure.exc_type}: ${failure.message}`.slice(0, 120),
    detail: failure.test ?? failure.id,
    failure,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Heal: pick a failing test',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.failure;
}

async function healFailingTest(server: HealServer, arg: TestArg): Promise<unknown> {
  const failure = await pickFailure(server, arg, true);
  if (!failure) {
    return undefined;
  }
  // The server tells the user the outcome (window/showMessage, in every editor): one message.
  return serverCommand(server, HEAL_FAILING_TEST, [{ test: failure.test ?? failure.id }]);
}

/** "Load CI Test Report": a JUnit XML file's failures become diagnostics; nothing runs. */
async function loadReport(server: HealServer, uri?: vscode.Uri): Promise<unknown> {
  const picked =
    uri ??
    (
      await vscode.window.showOpenDialog({
        title: 'Heal: load a JUnit XML test report (e.g. from CI)',
        filters: { 'JUnit XML': ['xml'] },
        canSelectMany: false,
      })
    )?.[0];
  if (!picked) {
    return undefined;
  }
  return serverCommand(server, LOAD_REPORT, [{ report: picked.toString() }]);
}

function runScript(server: HealServer, uri?: vscode.Uri): Promise<unknown> | undefined {
  const target = uri ?? vscode.window.activeTextEditor?.document.uri;
  if (!target) {
    void vscode.window.showInformationMessage('Heal: open a Python script to run it.');
    return undefined;
  }
  return serverCommand(server, RUN_SCRIPT, [{ uri: target.toString() }]);
}

async function debugTest(server: HealServer, arg: TestArg): Promise<boolean> {
  const failure = await pickFailure(server, arg, false);
  if (!failure) {
    return false;
  }
  const test = failure.test ?? failure.id;
  const where = await serverCommand(server, DEBUG_TEST, [{ test }], `Starting ${test}`);
  return isDebugTarget(where) ? attachDebugger(where, test) : false;
}

/** Ask for a provider and a key (or take them as an argument); an empty key deletes it. */
async function setApiKey(
  context: vscode.ExtensionContext,
  arg?: { provider?: string; key?: string },
): Promise<boolean> {
  let provider: KeyProvider | undefined = isKeyProvider(arg?.provider) ? arg.provider : undefined;
  if (!provider) {
    const items = Object.entries(PROVIDERS).map(([id, p]) => ({ label: p.label, id }));
    const picked = await vscode.window.showQuickPick(items, { title: 'Heal: API key for' });
    provider = isKeyProvider(picked?.id) ? picked.id : undefined;
  }
  if (!provider) {
    return false;
  }
  const key =
    arg?.key ??
    (await vscode.window.showInputBox({
      title: `Heal: ${PROVIDERS[provider].label} API key`,
      prompt: 'Stored in VS Code secret storage; leave empty to remove the key.',
      password: true,
      ignoreFocusOut: true,
    }));
  if (key === undefined) {
    return false;
  }
  await storeKey(context.secrets, provider, key);
  return true;
}
