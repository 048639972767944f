/**
 * Read-only markdown reports (Quick Health Probe details, installed-SGLang flag differences): generated
 * documents under their own scheme, registered at activation so a report tab restored after a reload
 * has its provider at once.
 */
import * as vscode from 'vscode';
import { GeneratedDocuments, slug } from './generatedDocuments';

export const REPORT_SCHEME = 'inference-doctor-report';

let reports: GeneratedDocuments | undefined;

function store(): GeneratedDocuments {
  reports ??= new GeneratedDocuments(REPORT_SCHEME, { preview: true });
  return reports;
}

/** Shows a markdown report as `name` (e.g. `quick-health-probe.md`) under a folder named after `owner`. */
export function openReport(owner: string, name: string, markdown: string): Promise<vscode.TextEditor> {
  return store().open(`/${slug(owner)}/${name}`, markdown, 'markdown');
}

/** Registers the report scheme (from activate()). */
export function registerReportDocuments(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, store()), store());
}
