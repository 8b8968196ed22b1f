// The Testing view: heal-ls's failing tests in the Test Explorer, "Heal" and "Debug" on a failed
// test's context menu (package.json: testing/item/context) and a Run profile that asks the
// server to run the tests (heal.runTests). It shows what the server already sends: heal/failures,
// read again whenever its diagnostics change, so the results of heal-ls's runs, heals, a loaded
// CI report and the user's own pytest runs (which the server follows) all appear here.
//
// Where the failure starts (the heal diagnostic's range in the suspect function) is in every
// message's text. Only a run the user starts from the Testing view (the Run profile) attaches
// its messages there: VS Code then shows the message inline at the end of that line, as for
// any test run, and a click on it opens the failure's peek. Results that arrive by themselves
// carry no location: the line already has heal-ls's diagnostic and its quick fixes, and an
// inline message nobody asked for would sit over it and take the user's click.
import * as vscode from 'vscode';
import { serverCommand, listFailures } from './commands';
import { RUN_TESTS, TEST_CONTROLLER } from './constants';
import { HealServer } from './server';
import { DiagnosticData, FailureInfo } from './wire';

/** A test as the view shows it now; tests read these through the extension's API. */
export interface ShownTest {
  state: 'failed' | 'passed';
  message?: string;
  /** Where heal-ls located the failure: the failing line of the suspect function. */
  starts?: vscode.Location;
  /** Where the message is shown in the editor: `starts` after a Run from the Testing view. */
  location?: vscode.Location;
}

/** Where a failure's diagnostics are: the Error (in the suspect) and the failing test line. */
interface Places {
  error?: vscode.Location;
  test?: vscode.Location;
}

type Test = FailureInfo & { test: string };

export class HealTests implements vscode.Disposable {
  readonly controller: vscode.TestController;
  /** By test item id (the test's node id): what the view shows for it. */
  readonly shown = new Map<string, ShownTest>();
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[];
  /** Files that had heal diagnostics at the last look: a change there is worth a refresh. */
  private withDiagnostics = new Set<string>();
  /** The server start the view shows: a restarted server knows no failure yet. */
  private serverStart = 0;

  constructor(private readonly server: HealServer) {
    this.controller = vscode.tests.createTestController(TEST_CONTROLLER.id, TEST_CONTROLLER.label);
    this.controller.createRunProfile(
      'Run',
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
    this.subscriptions = [
      this.controller,
      vscode.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((uri) => this.withDiagnostics.has(uri.toString()) || this.ours(uri))) {
          this.soon();
        }
      }),
    ];
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.subscriptions.forEach((s) => s.dispose());
  }

  /** Show the server's failures once its diagnostics settle (one publish touches many files). */
  soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), 150);
  }

  /** Ask the server for its failures; what changed is reported as a run of its own. */
  refresh(): Promise<void> {
    return this.serialised(async () => {
      this.startOverAfterRestart();
      const failing = await this.failing();
      const places = this.places();
      const changed = failing.filter((t) => !sameFailure(this.shown.get(t.test), t, places));
      const passing = this.failedIds().filter((id) => !failing.some((t) => t.test === id));
      if (!changed.length && !passing.length) {
        return;
      }
      const run = this.controller.createTestRun(new vscode.TestRunRequest(), 'heal-ls', false);
      this.report(run, failing, passing, false);
      run.end();
    });
  }

  /** The Run profile: heal.runTests for each chosen file or test (none chosen: every test). */
  private run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    return this.serialised(async () => {
      const run = this.controller.createTestRun(request, 'Heal: Run Tests', false);
      const chosen = request.include ?? [];
      const scope = chosen.flatMap((item) => (item.children.size ? children(item) : [item]));
      scope.forEach((item) => run.started(item));
      try {
        for (const args of chosen.length ? chosen.map(runArgs) : [undefined]) {
          if (token.isCancellationRequested) {
            break;
          }
          await serverCommand(this.server, RUN_TESTS, args ? [args] : [], undefined, token);
        }
        const failing = await this.failing();
        const ran = chosen.length ? scope.map((item) => item.id) : this.knownIds();
        this.report(run, failing, ran.filter((id) => !failing.some((t) => t.test === id)), true);
      } finally {
        run.end();
      }
    });
  }

  /** One refresh or run at a time; a failed one is logged and never stops the next. */
  private serialised(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue
      .then(step)
      .catch((err: unknown) => this.server.output.warn(`Testing view: ${String(err)}`));
    return this.queue;
  }

  private startOverAfterRestart(): void {
    if (this.serverStart !== this.server.starts) {
      this.serverStart = this.server.starts;
      this.controller.items.replace([]);
      this.shown.clear();
    }
  }

  private ours(uri: vscode.Uri): boolean {
    return Boolean(this.server.client?.diagnostics?.get(uri)?.length);
  }

  private async failing(): Promise<Test[]> {
    const failures = await listFailures(this.server);
    return failures.filter((f): f is Test => Boolean(f.test));
  }

  /** Mark the tests; `inline`: attach each message where its failure starts (see the top). */
  private report(run: vscode.TestRun, failing: Test[], passing: string[], inline: boolean): void {
    const places = this.places();
    for (const test of failing) {
      const item = this.item(test, places.get(test.id));
      const starts = startsAt(test, places.get(test.id));
      const message = new vscode.TestMessage(failureText(test, starts));
      message.location = inline ? starts : undefined;
      run.failed(item, message);
      const text = message.message.toString();
      this.shown.set(test.test, { state: 'failed', message: text, starts, location: message.location });
    }
    for (const id of passing) {
      const item = this.find(id);
      if (item) {
        run.passed(item);
        this.shown.set(id, { state: 'passed' });
      }
    }
  }

  /** The test's item under its file's item, both made on first sight. */
  private item(test: Test, places?: Places): vscode.TestItem {
    const [file, ...name] = test.test.split('::');
    const fileUri = places?.test?.uri ?? vscode.Uri.joinPath(folderOf(test).uri, file);
    let parent = this.controller.items.get(fileUri.toString());
    if (!parent) {
      const label = vscode.workspace.asRelativePath(fileUri);
      parent = this.controller.createTestItem(fileUri.toString(), label, fileUri);
      this.controller.items.add(parent);
    }
    let item = parent.children.get(test.test);
    if (!item) {
      item = this.controller.createTestItem(test.test, name.join('::') || test.test, fileUri);
      parent.children.add(item);
    }
    const inTest = places?.error?.uri.toString() === fileUri.toString() ? places?.error : undefined;
    item.range = (places?.test ?? inTest)?.range ?? item.range;
    return item;
  }

  private find(id: string): vscode.TestItem | undefined {
    let found: vscode.TestItem | undefined;
    this.controller.items.forEach((file) => (found = found ?? file.children.get(id)));
    return found;
  }

  private knownIds(): string[] {
    return [...this.shown.keys()];
  }

  private failedIds(): string[] {
    return [...this.shown].filter(([, shown]) => shown.state === 'failed').map(([id]) => id);
  }

  /** Every heal diagnostic by failure id (its `data.failure`), from the client's collection. */
  private places(): Map<string, Places> {
    const places = new Map<string, Places>();
    this.withDiagnostics.clear();
    this.server.client?.diagnostics?.forEach((uri, diagnostics) => {
      this.withDiagnostics.add(uri.toString());
      for (const diagnostic of diagnostics) {
        const id = (diagnostic as { data?: Partial<DiagnosticData> }).data?.failure;
        if (id) {
          const place = places.get(id) ?? {};
          const where = new vscode.Location(uri, diagnostic.range);
          if (diagnostic.severity === vscode.DiagnosticSeverity.Hint) {
            place.test = where;
          } else {
            place.error = where;
          }
          places.set(id, place);
        }
      }
    });
    return places;
  }
}

/** "KeyError: 'pear'", then where the failure starts (the first line is what VS Code shows inline). */
function failureText(test: Test, starts?: vscode.Location): string {
  const lines = [`${test.exc_type}: ${test.message}`.replace(/: $/, '')];
  const suspect = test.suspect;
  if (suspect) {
    const line = (starts?.range.start.line ?? suspect.line - 1) + 1;
    const where = vscode.workspace.asRelativePath(starts?.uri ?? vscode.Uri.file(suspect.path));
    lines.push(`The failure starts in ${suspect.qualname} (${where}:${line}).`);
  }
  if (!test.healable && test.reason) {
    lines.push(`No heal: ${test.reason}`);
  }
  return lines.join('\n');
}

/** The failing line of the suspect function (its heal diagnostic), else the suspect's def line. */
function startsAt(test: Test, places?: Places): vscode.Location | undefined {
  const suspect = test.suspect;
  if (places?.error || !suspect) {
    return places?.error;
  }
  return new vscode.Location(vscode.Uri.file(suspect.path), new vscode.Position(suspect.line - 1, 0));
}

/** Shown as now (a Run's inline message is kept: a later refresh of the same failure is no news). */
function sameFailure(shown: ShownTest | undefined, test: Test, places: Map<string, Places>): boolean {
  const starts = startsAt(test, places.get(test.id));
  return (
    shown?.state === 'failed' &&
    shown.message === failureText(test, starts) &&
    sameLocation(shown.starts, starts)
  );
}

function sameLocation(a?: vscode.Location, b?: vscode.Location): boolean {
  if (!a || !b) {
    return a === b;
  }
  return a.uri.toString() === b.uri.toString() && a.range.isEqual(b.range);
}

function children(item: vscode.TestItem): vscode.TestItem[] {
  const all: vscode.TestItem[] = [];
  item.children.forEach((child) => all.push(child));
  return all;
}

/** heal.runTests' argument for an item: a test by its node id, a file by its uri. */
function runArgs(item: vscode.TestItem): { test: string } | { uri: string } {
  return item.parent ? { test: item.id } : { uri: item.uri?.toString() ?? item.id };
}

function folderOf(test: Test): vscode.WorkspaceFolder {
  const suspect =
    test.suspect && vscode.workspace.getWorkspaceFolder(vscode.Uri.file(test.suspect.path));
  const folders = vscode.workspace.workspaceFolders ?? [];
  return suspect ?? folders[0];
}
