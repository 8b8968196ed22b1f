// Starts `python -m heal_ls serve` over stdio and owns the LanguageClient's lifecycle.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { attachAfterDebugTest } from './debug';
import { keyEnvironment } from './secrets';
import { interpreterSetting, SECTION, serverSettingNames, serverSettings } from './settings';

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(
      env: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

/** heal.interpreter, else the Python extension's active interpreter, else python3. */
export async function resolveInterpreter(resource?: vscode.Uri): Promise<string> {
  const configured = interpreterSetting(resource);
  if (configured) {
    return configured;
  }
  const fromExtension = await activeInterpreter(resource).catch(() => undefined);
  return fromExtension ?? 'python3';
}

async function activeInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!extension) {
    return undefined;
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  const active = api.environments?.getActiveEnvironmentPath(resource);
  if (!active) {
    return undefined;
  }
  const resolved = await api.environments?.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath ?? active.path;
}

/** The server's environment: ours, plus bundled libs on PYTHONPATH and the stored API keys. */
export function serverEnvironment(
  extensionPath: string,
  keys: Record<string, string>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...keys, PYTHONUNBUFFERED: '1' };
  const bundled = path.join(extensionPath, 'bundled', 'libs');
  if (fs.existsSync(bundled)) {
    env.PYTHONPATH = [bundled, env.PYTHONPATH].filter(Boolean).join(path.delimiter);
  }
  return env;
}

export class HealServer implements vscode.Disposable {
  client: LanguageClient | undefined;
  pid: number | undefined;
  interpreter: string | undefined;
  starts = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
    private readonly configure: (client: LanguageClient) => void,
  ) {}

  /** Start, stop and restart are serialised so two restarts never overlap. */
  restart(reason: string): Promise<void> {
    return this.enqueue(async () => {
      this.output.info(`restarting the server: ${reason}`);
      await this.stopNow();
      await this.startNow();
    });
  }

  /** Resolves once any start, stop or restart in progress has finished. */
  async ready(): Promise<void> {
    await this.queue;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.startNow());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  dispose(): void {
    void this.stop();
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async startNow(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    this.interpreter = await resolveInterpreter(folder?.uri);
    const env = serverEnvironment(this.context.extensionPath, await keyEnvironment(this.context.secrets));
    if (env.PYTHONPATH) {
      this.output.info(`PYTHONPATH: ${env.PYTHONPATH}`);
    }
    const names = serverSettingNames(this.context.extension);
    const serverOptions: ServerOptions = async () => this.spawn(env, folder?.uri.fsPath);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'python' }],
      outputChannel: this.output,
      initializationOptions: () => ({ [SECTION]: serverSettings(names, folder?.uri) }),
      synchronize: { configurationSection: SECTION },
      middleware: {
        executeCommand: attachAfterDebugTest,
        workspace: {
          // Answer workspace/configuration for "heal" with exactly the server's settings.
          configuration: async (params, token, next) => {
            const theirs = await next(params, token);
            if (!Array.isArray(theirs)) {
              return theirs;
            }
            return params.items.map((item, index) =>
              item.section === SECTION
                ? serverSettings(names, item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
                : theirs[index],
            );
          },
        },
      },
    };
    const client = new LanguageClient('heal', 'Heal', serverOptions, clientOptions);
    this.configure(client);
    this.client = client;
    this.starts += 1;
    await client.start();
    this.output.info(`server started with ${this.interpreter} (pid ${this.pid})`);
  }

  private spawn(env: NodeJS.ProcessEnv, cwd: string | undefined): cp.ChildProcess {
    const python = this.interpreter ?? 'python3';
    this.output.info(`starting: ${python} -m heal_ls serve (cwd ${cwd ?? process.cwd()})`);
    const child = cp.spawn(python, ['-m', 'heal_ls', 'serve'], { cwd, env });
    child.on('error', (err) => this.output.error(`could not start ${python}: ${err.message}`));
    this.pid = child.pid;
    return child;
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    if (client) {
      await client.stop(5000).catch((err) => this.output.warn(`stop: ${String(err)}`));
    }
  }
}
