// Status bar item fed by the server's `heal/status` notification: failing count and busy state.
import * as vscode from 'vscode';
import { paletteId } from './constants';
import { StatusPayload } from './wire';

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  current: StatusPayload = { running: false, failing: 0, healing: null, lastHeal: null };
  stopped = false;

  constructor() {
    this.item = vscode.window.createStatusBarItem('heal.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Heal';
    this.item.command = paletteId('healFailingTest');
    this.render();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  get tooltip(): string {
    return String(this.item.tooltip ?? '');
  }

  update(status: Partial<StatusPayload>): void {
    this.current = {
      running: Boolean(status.running),
      failing: Number(status.failing ?? 0),
      healing: status.healing ?? null,
      lastHeal: status.lastHeal ?? null,
    };
    this.stopped = false;
    this.render();
  }

  serverStopped(): void {
    this.stopped = true;
    this.render();
  }

  dispose(): void {
    this.item.dispose();
  }

  private render(): void {
    const { running, failing, healing, lastHeal } = this.current;
    const failingText = failing === 1 ? '1 failing' : `${failing} failing`;
    if (this.stopped) {
      this.item.text = '$(debug-disconnect) Heal: stopped';
    } else if (healing) {
      this.item.text = `$(sync~spin) Heal: healing ${healing}`;
    } else if (running) {
      this.item.text = `$(sync~spin) Heal: running tests`;
    } else {
      this.item.text = failing > 0 ? `$(beaker) Heal: ${failingText}` : '$(check) Heal';
    }
    this.item.tooltip = this.stopped
      ? 'The heal-ls server is not running: Heal: Show Logs'
      : `${failingText}. Click to heal a failing test.` +
        (lastHeal ? `\nLast heal: ${lastHeal.qualname} ${lastHeal.status} (${lastHeal.meter})` : '');
    this.item.backgroundColor =
      failing > 0 && !running && !healing
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
  }
}
