/**
 * The probe webview's HTML: the extension's webview shell (src/ui/webviewTemplate.ts) with the
 * probe page's title. Pure (no VS Code API), so the headless Chromium test renders what ships.
 */
import { webviewHtml, type WebviewHtmlInput } from '../ui/webviewTemplate';

export { contentSecurityPolicy } from '../ui/webviewTemplate';

export const PROBE_TITLE = 'Inference Doctor: Probe';

export type ProbeHtmlInput = Omit<WebviewHtmlInput, 'title'>;

export function probeHtml(input: ProbeHtmlInput): string {
  return webviewHtml({ ...input, title: PROBE_TITLE });
}
