// Attaching VS Code's debugger to a test that heal.debugTest started under debugpy. Shared by the
// palette command and the "Debug failing test" code action (through the client middleware).
import * as vscode from 'vscode';
import { ExecuteCommandSignature } from 'vscode-languageclient/node';
import { DEBUG_TEST } from './constants';
import { DebugTarget } from './wire';

/** The last attach configuration asked for (tests read it through the extension's API). */
export let lastAttach: vscode.DebugConfiguration | undefined;

export function isDebugTarget(value: unknown): value is DebugTarget {
  const target = value as DebugTarget | undefined;
  return typeof target?.host === 'string' && typeof target.port === 'number';
}

/** Start a debugpy attach session on `target`; false when it could not start. */
export async function attachDebugger(target: DebugTarget, test?: string): Promise<boolean> {
  const name = `Debug ${test ?? target.test}`;
  const config: vscode.DebugConfiguration = {
    type: 'debugpy',
    request: 'attach',
    name,
    connect: { host: target.host, port: target.port },
    justMyCode: false,
  };
  lastAttach = config;
  if (!vscode.extensions.getExtension('ms-python.debugpy')) {
    void vscode.window.showWarningMessage(
      `Heal: install the Python Debugger extension to attach; debugpy waits on ${target.host}:${target.port}.`,
    );
    return false;
  }
  return vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], config);
}

/**
 * Client middleware for workspace/executeCommand: vscode-languageclient drops a command's
 * result, so the "Debug failing test" code action (heal.debugTest) would start debugpy and
 * attach nothing. Attach here, then hand the result on.
 */
export async function attachAfterDebugTest(
  command: string,
  args: unknown[],
  next: ExecuteCommandSignature,
): Promise<unknown> {
  const result: unknown = await next(command, args);
  if (command === DEBUG_TEST && isDebugTarget(result)) {
    await attachDebugger(result);
  }
  return result;
}
