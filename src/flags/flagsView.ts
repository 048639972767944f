/**
 * Backend Flags view: one engine's flags at a time (SGLang's or vLLM's active catalog), grouped by
 * family, choices as children, the default and the value on the selected server marked, a text
 * filter, and run-time differences (from "Load Flags from Installed SGLang or vLLM") shown on the
 * flags they concern.
 *
 * The catalog comes from the language server (custom request `inferenceDoctor/catalogEntries`):
 * the server already holds the active catalog — workspace file kept up to date as it is edited,
 * runtime catalog or settings file — so the view never parses server_args.py a second time in the
 * extension host, and it always shows the catalog the hovers and diagnostics use.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { choiceText, takesNoValue, type ChoiceValue, type FlagEntry, type FlagFamily } from '../core/flags/types';
import type { FlagDifference } from '../core/flags/runtime';
import type { CatalogEntriesResult, CatalogSourceInfo, LaunchEngine } from '../shared/lspProtocol';
import { guardTreeItem } from '../ui/foreignText';
import { rowCommand } from '../ui/rowCommand';
import { codeSpan, escapeMarkdown } from '../core/text/foreign';
import { errorMessage } from '../core/errors';
import { defaultOf, definitionOf, flagRowDescription, groupByFamily, matchesFilter, valueText } from './flagRows';
import { catalogTitle, ENGINE_LABELS } from './flagsEngine';

export const FAMILY_LABELS: Record<FlagFamily, string> = {
  attention: 'Attention',
  moe: 'MoE runner and all-to-all',
  gemm: 'FP4 / FP8 / BF16 GEMM',
  'kv-cache': 'KV cache',
  sampling: 'Sampling',
  grammar: 'Grammar',
  speculative: 'Speculative decoding',
  lora: 'LoRA',
  disaggregation: 'Disaggregation',
  other: 'Other',
};

export type FlagsNode = { kind: 'family'; family: FlagFamily; flags: FlagNode[] } | FlagNode | { kind: 'choice'; parent: FlagNode; value: ChoiceValue };
export interface FlagNode {
  kind: 'flag';
  entry: FlagEntry;
  family: FlagFamily;
  choices: FlagsNode[];
}

/** Source of the entries: asks the language server for one engine's catalog (injected so the view stays testable). */
export type CatalogLoader = (knownGeneration: number | undefined, engine: LaunchEngine) => Promise<CatalogEntriesResult | undefined>;

/** Run-time differences of an installed engine, and where it was loaded from. */
interface Differences {
  from: string | undefined;
  byFlag: Map<string, FlagDifference[]>;
}

export class FlagsView implements vscode.TreeDataProvider<FlagsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<FlagsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly descriptionChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeDescription = this.descriptionChanged.event;

  private result: CatalogEntriesResult | undefined;
  private loading: Promise<void> | undefined;
  private roots: FlagsNode[] = [];
  private readonly byFlag = new Map<string, FlagNode>();
  private readonly byField = new Map<string, FlagNode>();
  private filterText = '';
  private serverValues: Record<string, unknown> | undefined;
  private serverLabel: string | undefined;
  private serverEngine: string | undefined;
  private engineShown: LaunchEngine = 'sglang';
  private readonly differences = new Map<LaunchEngine, Differences>();
  /** Set when the server reported a change while nobody looked; the next getChildren reloads. */
  private stale = true;
  private wholeNext = false;
  private problem: string | undefined;

  constructor(private readonly load: CatalogLoader) {}

  get filter(): string {
    return this.filterText;
  }
  get source(): CatalogSourceInfo | null | undefined {
    return this.result?.source;
  }
  get entries(): FlagEntry[] {
    return this.result?.entries ?? [];
  }
  get definitionUri(): string | undefined {
    return this.result?.definitionUri;
  }
  get server(): string | undefined {
    return this.serverLabel;
  }
  get engine(): LaunchEngine {
    return this.engineShown;
  }

  /** Where a flag is defined (file and 1-based line), when the catalog knows. */
  definition(e: FlagEntry): { uri: string; line: number } | undefined {
    return definitionOf(this.result, e);
  }

  /** "filter: fp4 · values: gpu-box · vLLM · bundled release 0.15.0". */
  description(): string {
    const parts: string[] = [];
    if (this.filterText) parts.push(`filter: ${this.filterText}`);
    if (this.serverLabel) parts.push(`values: ${this.serverLabel}`);
    parts.push(catalogTitle(this.engineShown, this.result?.source));
    return parts.join(' · ');
  }

  /** Shown above the tree when there is nothing to list. */
  message(): string | undefined {
    if (this.problem) return this.problem;
    if (this.result && !this.result.source)
      return this.engineShown === 'vllm'
        ? 'No vLLM flag catalog: the bundled one did not load (see the "Inference Doctor Flags" output); run "Load Flags from Installed SGLang or vLLM".'
        : 'No flag catalog yet: open an SGLang server_args.py, set inferenceDoctor.flags.serverArgsPath, or run "Load Flags from Installed SGLang or vLLM".';
    if (this.result && this.filterText && this.roots.length === 0) return `No flag matches "${this.filterText}".`;
    return undefined;
  }

  setFilter(text: string): void {
    this.filterText = text.trim();
    this.rebuild();
  }

  /** The selected server's /server_info; `engine` what it says it is (its values show only on that engine's flags). */
  setServerValues(label: string | undefined, values: Record<string, unknown> | undefined, engine?: string): void {
    this.serverLabel = label;
    this.serverValues = values;
    this.serverEngine = engine;
    this.changed.fire(undefined);
    this.descriptionChanged.fire();
  }

  /** Shows another engine's flags: the rows go until its catalog arrives (the caller reloads). */
  setEngine(engine: LaunchEngine): boolean {
    if (engine === this.engineShown) return false;
    this.engineShown = engine;
    this.result = undefined;
    this.stale = true;
    this.rebuild();
    return true;
  }

  /** What an installed engine's parser has that its static catalog has not; shown on that engine's rows. */
  setDifferences(engine: LaunchEngine, from: string | undefined, byFlag: Map<string, FlagDifference[]>): void {
    this.differences.set(engine, { from, byFlag });
    this.changed.fire(undefined);
  }

  private differencesOf(e: FlagEntry): FlagDifference[] {
    return this.differences.get(this.engineShown)?.byFlag.get(e.flag) ?? [];
  }

  /**
   * The server's catalog changed: reload now if loaded before, else on next show. `whole`: the
   * request itself changed (another document's release), so the generation the view has says nothing.
   */
  markStale(whole = false): void {
    this.stale = true;
    if (whole) this.wholeNext = true;
  }

  /** Asks the server again (only the generation when nothing changed); refreshes the tree when it did. */
  reload(force = false): Promise<void> {
    if (this.loading) return this.loading;
    this.loading = (async () => {
      let switched = false;
      try {
        const engine = this.engineShown;
        const whole = force || this.wholeNext;
        this.wholeNext = false;
        const r = await this.load(whole ? undefined : this.result?.generation, engine);
        // The user switched engines while this answer was on its way: the tree asks again once this load is over.
        switched = engine !== this.engineShown;
        if (switched) return;
        this.stale = false;
        if (!r) {
          this.problem = 'The flags language server is not running (see the "Inference Doctor Flags" output).';
          this.rebuild();
          return;
        }
        this.problem = undefined;
        if (r.unchanged && this.result) return;
        this.result = r;
        this.rebuild();
      } catch (e) {
        this.problem = `Could not read the flag catalog: ${errorMessage(e)}`;
        this.rebuild();
      } finally {
        this.loading = undefined;
        if (switched) this.changed.fire(undefined);
      }
    })();
    return this.loading;
  }

  private rebuild(): void {
    this.byFlag.clear();
    this.byField.clear();
    const nodes = new Map<FlagEntry, FlagNode>();
    for (const { family, entries } of groupByFamily(this.result?.entries ?? [], '')) {
      for (const entry of entries) {
        const node: FlagNode = { kind: 'flag', entry, family, choices: [] };
        node.choices = (entry.choices ?? []).map((value) => ({ kind: 'choice', parent: node, value }));
        nodes.set(entry, node);
        if (!this.byField.has(entry.field)) this.byField.set(entry.field, node);
        for (const o of [entry.flag, ...entry.aliases]) if (!this.byFlag.has(o)) this.byFlag.set(o, node);
      }
    }
    this.roots = groupByFamily(this.result?.entries ?? [], this.filterText).map(({ family, entries }) => ({
      kind: 'family' as const,
      family,
      flags: entries.map((e) => nodes.get(e)!),
    }));
    this.changed.fire(undefined);
    this.descriptionChanged.fire();
  }

  /** The node of a flag (any option string) or field, whether or not the filter shows it. */
  find(flagOrField: string): FlagNode | undefined {
    return this.byFlag.get(flagOrField) ?? this.byField.get(flagOrField);
  }

  isVisible(node: FlagNode): boolean {
    return matchesFilter(node.entry, this.filterText);
  }

  /** The value the selected server runs with, by field (undefined when unknown). */
  serverValue(entry: FlagEntry): unknown {
    // An SGLang server's attention_backend is no value of vLLM's --attention-backend, and back.
    if (this.serverEngine && this.serverEngine !== 'unknown' && this.serverEngine !== this.engineShown) return undefined;
    return this.serverValues && Object.prototype.hasOwnProperty.call(this.serverValues, entry.field) ? this.serverValues[entry.field] : undefined;
  }

  async getChildren(node?: FlagsNode): Promise<FlagsNode[]> {
    if (!node) {
      if (this.stale || !this.result) await this.reload();
      return this.roots;
    }
    if (node.kind === 'family') return node.flags;
    if (node.kind === 'flag') return node.choices;
    return [];
  }

  getParent(node: FlagsNode): FlagsNode | undefined {
    if (node.kind === 'choice') return node.parent;
    if (node.kind === 'flag') return this.roots.find((r) => r.kind === 'family' && r.family === node.family);
    return undefined;
  }

  getTreeItem(node: FlagsNode): vscode.TreeItem {
    return guardTreeItem(this.itemFor(node));
  }

  private itemFor(node: FlagsNode): vscode.TreeItem {
    if (node.kind === 'family') {
      const item = new vscode.TreeItem(
        FAMILY_LABELS[node.family],
        this.filterText ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      // VS Code keeps a node's collapse state by id; a filtered tree gets fresh ids so its families open.
      item.id = this.filterText ? `family:${node.family}?${this.filterText}` : `family:${node.family}`;
      item.description = `${node.flags.length} flag${node.flags.length === 1 ? '' : 's'}`;
      item.contextValue = 'flagFamily';
      item.iconPath = new vscode.ThemeIcon('symbol-namespace');
      return item;
    }
    if (node.kind === 'flag') return this.flagItem(node);
    return this.choiceItem(node);
  }

  private flagItem(node: FlagNode): vscode.TreeItem {
    const e = node.entry;
    const item = new vscode.TreeItem(e.flag, e.choices?.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `flag:${e.flag}`;
    const onServer = valueText(this.serverValue(e));
    const diffs = this.differencesOf(e);
    item.description = flagRowDescription(e, onServer, diffs);
    item.tooltip = this.tooltip(node, onServer, defaultOf(e), diffs);
    // Open Definition is offered only where a file is known (never for bundled or vLLM catalogs).
    const definition = this.definition(e);
    item.contextValue = definition ? 'flag' : 'flagNoSource';
    item.iconPath = new vscode.ThemeIcon(
      diffs.length ? 'diff' : e.deprecated ? 'warning' : e.choices?.length ? 'symbol-enum' : takesNoValue(e) ? 'symbol-boolean' : 'symbol-field',
    );
    // Rows redraw as catalogs load and filters change: the command reads the clicked row (rowCommand.ts).
    if (definition) item.command = rowCommand(COMMANDS.openClickedDefinition, 'Open Definition');
    return item;
  }

  private tooltip(node: FlagNode, onServer: string | undefined, def: string | undefined, diffs: FlagDifference[]): vscode.MarkdownString {
    const e = node.entry;
    // Flag names, help, values, the server's label and the differences all come from files,
    // installed packages or servers: escaped text and code spans only.
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${[e.flag, ...e.aliases].map((o) => codeSpan(o)).join(', ')}**`);
    if (e.group) md.appendMarkdown(` — ${escapeMarkdown(e.group)}`);
    md.appendMarkdown('\n\n');
    if (e.help) md.appendMarkdown(`${escapeMarkdown(e.help)}\n\n`);
    const facts = [`Field: ${codeSpan(e.field)}`, `Family: ${FAMILY_LABELS[node.family]}`];
    if (def !== undefined) facts.push(`Default: ${codeSpan(def)}${e.resolvable ? ' (decided at start-up)' : ''}`);
    if (onServer !== undefined) facts.push(`On ${this.serverLabel ? escapeMarkdown(this.serverLabel) : 'the server'}: ${codeSpan(onServer)}`);
    if (e.choices?.length) facts.push(`Choices: ${e.choices.length}${e.dynamicChoices ? ' (can grow at run time)' : ''}`);
    md.appendMarkdown(facts.map((f) => `- ${f}`).join('\n'));
    const from = this.differences.get(this.engineShown)?.from;
    if (diffs.length)
      md.appendMarkdown(
        `\n\n**Installed ${ENGINE_LABELS[this.engineShown]}${from ? ` (${escapeMarkdown(from)})` : ''}:**\n${diffs.map((d) => `- ${escapeMarkdown(d.message)}`).join('\n')}`,
      );
    return md;
  }

  private choiceItem(node: Extract<FlagsNode, { kind: 'choice' }>): vscode.TreeItem {
    const e = node.parent.entry;
    const t = choiceText(node.value);
    const item = new vscode.TreeItem(t, vscode.TreeItemCollapsibleState.None);
    item.id = `choice:${e.flag}=${t}`;
    const onServer = valueText(this.serverValue(e));
    const marks: string[] = [];
    const isServer = onServer === t;
    if (isServer) marks.push(`on ${this.serverLabel ?? 'server'}`);
    if (defaultOf(e) === t) marks.push('default');
    const dep = e.deprecatedChoices?.find((d) => choiceText(d.value) === t);
    if (dep) marks.push(dep.replacement ? `deprecated → ${dep.replacement}` : 'deprecated');
    const grew = this.differencesOf(e).find((d) => d.kind === 'choices-grew' && d.added?.some((a) => choiceText(a) === t));
    if (grew) marks.push('added at run time');
    item.description = marks.join(' · ');
    item.iconPath = new vscode.ThemeIcon(isServer ? 'pass-filled' : defaultOf(e) === t ? 'star-full' : 'circle-outline');
    item.contextValue = 'flagChoice';
    item.tooltip = `${e.flag} ${t}`;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
    this.descriptionChanged.dispose();
  }
}
