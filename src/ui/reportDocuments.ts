/**
 * Read-only markdown reports (Quick Health Probe details, installed-SGLang flag differences): generated
 * documents under their own scheme, registered at activation so a report tab restored after a reload
 * has its provider at once. The reports service on the context.
 */
import * as vscode from 'vscode';
import type { CtxBase, ReportsService } from '../context';
import { GeneratedDocuments, slug } from './generatedDocuments';

export const REPORT_SCHEME = 'inference-doctor-report';

export function createReportsService(base: CtxBase): ReportsService {
  const documents = new GeneratedDocuments(REPORT_SCHEME, { preview: true });
  base.pushCleanup(documents, vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, documents));
  return {
    /** Shows a markdown report as `name` (e.g. `quick-health-probe.md`) under a folder named after `owner`. */
    open: (owner, name, markdown) => documents.open(`/${slug(owner)}/${name}`, markdown, 'markdown'),
  };
}
