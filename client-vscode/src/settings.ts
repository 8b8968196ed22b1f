// Settings: names and defaults live once, in package.json; this module only reads them.
import * as vscode from 'vscode';

export const SECTION = 'heal';
/** Settings that only the extension uses (never sent to the server). */
const CLIENT_ONLY = new Set(['interpreter']);

/** Names of the server's settings, read from the extension's own package.json. */
export function serverSettingNames(extension: vscode.Extension<unknown>): string[] {
  const properties = extension.packageJSON?.contributes?.configuration?.properties ?? {};
  return Object.keys(properties)
    .filter((key) => key.startsWith(`${SECTION}.`))
    .map((key) => key.slice(SECTION.length + 1))
    .filter((name) => !CLIENT_ONLY.has(name));
}

/** The `heal` section as the server sees it: {provider, model, ...}, defaults filled in. */
export function serverSettings(
  names: string[],
  scope?: vscode.ConfigurationScope,
): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return Object.fromEntries(names.map((name) => [name, config.get(name)]));
}

export function interpreterSetting(scope?: vscode.ConfigurationScope): string {
  return (vscode.workspace.getConfiguration(SECTION, scope).get<string>('interpreter') ?? '').trim();
}

export function previewFixes(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('previewFixes') ?? false;
}
