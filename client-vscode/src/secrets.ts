// API keys live in VS Code's SecretStorage and reach the server only through its environment.
import * as vscode from 'vscode';

export const PROVIDERS = {
  anthropic: { label: 'Anthropic (Claude)', env: 'ANTHROPIC_API_KEY' },
  openai: { label: 'OpenAI or an OpenAI-compatible server', env: 'OPENAI_API_KEY' },
} as const;
export type KeyProvider = keyof typeof PROVIDERS;

const secretName = (provider: KeyProvider) => `heal.apiKey.${provider}`;

export function isKeyProvider(value: unknown): value is KeyProvider {
  return typeof value === 'string' && Object.hasOwn(PROVIDERS, value);
}

/** Environment variables for the server, one per stored key. */
export async function keyEnvironment(secrets: vscode.SecretStorage): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const provider of Object.keys(PROVIDERS) as KeyProvider[]) {
    const key = await secrets.get(secretName(provider));
    if (key) {
      env[PROVIDERS[provider].env] = key;
    }
  }
  return env;
}

/** Store a key, or delete it when `key` is empty. */
export async function storeKey(
  secrets: vscode.SecretStorage,
  provider: KeyProvider,
  key: string,
): Promise<void> {
  if (key.trim()) {
    await secrets.store(secretName(provider), key.trim());
  } else {
    await secrets.delete(secretName(provider));
  }
}

export function isKeySecret(name: string): boolean {
  return name.startsWith('heal.apiKey.');
}
