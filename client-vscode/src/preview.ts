// Handles workspace/applyEdit: refuses stale edits and, with heal.previewFixes, shows the fix in
// VS Code's refactor preview (a diff with Apply / Discard) before anything changes.
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ApplyWorkspaceEditResult,
  LanguageClient,
  TextDocumentEdit,
} from 'vscode-languageclient/node';
import { previewFixes } from './settings';

/** How many fixes are shown in the refactor preview right now, waiting for Apply or Discard. */
export let pendingPreviews = 0;

export function handleApplyEdit(client: LanguageClient, output: vscode.LogOutputChannel): void {
  // Registered before start, so it replaces the client's default handler.
  client.onRequest(ApplyWorkspaceEditRequest.type, async (params) => {
    const result = await applyEdit(client, params);
    output.info(`applyEdit ${params.label ?? ''}: ${result.applied ? 'applied' : result.failureReason}`);
    return result;
  });
}

async function applyEdit(
  client: LanguageClient,
  params: ApplyWorkspaceEditParams,
): Promise<ApplyWorkspaceEditResult> {
  const stale = staleDocument(client, params);
  if (stale) {
    return { applied: false, failureReason: `${stale} changed since the fix was computed` };
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(params.edit);
  // the server asks for a preview itself when the function has many callers
  const forced = Object.values(params.edit.changeAnnotations ?? {}).some((a) => a.needsConfirmation);
  if (!previewFixes() && !forced) {
    return { applied: await vscode.workspace.applyEdit(edit) };
  }
  pendingPreviews += 1;
  try {
    // a forced preview keeps the server's own annotation (its label says why: the callers)
    const confirmed = forced ? edit : needingConfirmation(edit, params.label ?? 'Heal fix');
    const applied = await vscode.workspace.applyEdit(confirmed);
    return applied ? { applied } : { applied, failureReason: 'discarded in the preview' };
  } finally {
    pendingPreviews -= 1;
  }
}

/** The path of an open document whose version differs from the one the edit was made for. */
function staleDocument(client: LanguageClient, params: ApplyWorkspaceEditParams): string | undefined {
  for (const change of params.edit.documentChanges ?? []) {
    if (!TextDocumentEdit.is(change) || change.textDocument.version === null) {
      continue;
    }
    const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri).toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (doc && doc.version !== change.textDocument.version) {
      return vscode.workspace.asRelativePath(doc.uri);
    }
  }
  return undefined;
}

/** The same text edits, each marked so VS Code shows its refactor preview and asks first. */
function needingConfirmation(edit: vscode.WorkspaceEdit, label: string): vscode.WorkspaceEdit {
  const confirmed = new vscode.WorkspaceEdit();
  for (const [uri, edits] of edit.entries()) {
    const metadata = {
      needsConfirmation: true,
      label,
      description: vscode.workspace.asRelativePath(uri),
    };
    for (const textEdit of edits) {
      confirmed.replace(uri, textEdit.range, textEdit.newText, metadata);
    }
  }
  return confirmed;
}
