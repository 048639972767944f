/**
 * Shapes of the flag catalog: what `server_args.py` (any era) declares as command-line flags.
 * Plain data, JSON-serialisable; no VS Code types.
 */

/** 0-based, LSP-style. `character` counts UTF-16 code units. */
export interface CatalogPosition {
  line: number;
  character: number;
}
export interface CatalogRange {
  start: CatalogPosition;
  end: CatalogPosition;
}

export type ChoiceValue = string | number | boolean | null;

/** A choice as argv and Python print it (`None` for null). */
export function choiceText(v: ChoiceValue): string {
  return v === null ? 'None' : String(v);
}

/** The dest argparse derives from an option string: `--tp-size` → `tp_size`. */
export function fieldFromFlag(flag: string): string {
  return flag.replace(/^-+/, '').replace(/-/g, '_');
}

export interface FlagEntry {
  /** First option string, as argparse prints it: "--fp4-gemm-backend". */
  flag: string;
  /** The other option strings of the same action ("--tp" for "--tensor-parallel-size"). */
  aliases: string[];
  /** "--no-x" strings added by BooleanOptionalAction. */
  negations: string[];
  /** argparse dest / dataclass field name. */
  field: string;
  /** JSON value when the default is statically known. */
  default?: unknown;
  /** Source text of the default when it is not a literal (or "default_factory=..."). */
  defaultExpr?: string;
  /** Known choices (the base list when it can grow at run time). */
  choices?: ChoiceValue[];
  /** Source text of the choices expression when not a plain literal list. */
  choicesExpr?: string;
  /** True when the choices could not be resolved, or can grow at run time (add_*_choices hooks, conditional entries). */
  dynamicChoices?: boolean;
  /** Choice values the source marks as deprecated, with their replacement when stated. */
  deprecatedChoices?: { value: ChoiceValue; replacement?: string }[];
  /** Help text; implicit concatenation joined, escapes decoded, f-string holes kept as `{expr}`. */
  help?: string;
  /** Name of the argparse `type=` callable ("int", "human_readable_int"). */
  type?: string;
  /** argparse action name ("store_true", "BooleanOptionalAction", "DeprecatedAliasStoreAction"); absent = store. */
  action?: string;
  nargs?: string | number;
  const?: unknown;
  required?: boolean;
  deprecated?: boolean;
  /** Flag to use instead, when the source says so. */
  replacement?: string;
  /** Arg(resolvable=True): the default is a placeholder decided at start-up (read /server_info). */
  resolvable?: boolean;
  /** NS("...") namespace, or the argparse argument group title. */
  group?: string;
  /** Where the flag comes from. */
  source: 'dataclass' | 'add_argument';
  /** 1-based line of the definition (as editors display it). */
  line: number;
  /** 0-based range of the whole definition (field assignment or add_argument call). */
  range: CatalogRange;
  /**
   * The file `line`/`range` are in, when the catalog was read from a package (buildPackageCatalog):
   * a POSIX path relative to the directory that holds the `sglang` package, e.g.
   * "sglang/srt/arg_groups/fields/exec_.py". Absent for a catalog of one file's text.
   */
  file?: string;
}

export interface ChoiceList {
  name: string;
  values: ChoiceValue[];
  /** 1-based line of the assignment. */
  line: number;
  /** True when a function (hook) or a conditional block adds entries to it. */
  growsAtRuntime: boolean;
  /** Names of module functions that extend/append/add to it. */
  hooks: string[];
  /** Flags whose choices expression references this list. */
  usedBy: string[];
  /** Values added only under a module-level condition (`if ...: X.add("y")`). */
  conditionalValues?: ChoiceValue[];
  deprecatedValues?: { value: ChoiceValue; replacement?: string }[];
  /** The file `line` is in (package catalogs only; same form as FlagEntry.file). */
  file?: string;
}

export type CatalogEra = 'inline' | 'choices-lists' | 'dataclass' | 'mixed' | 'unknown';

export interface CatalogDiagnostic {
  message: string;
  line: number;
  severity: 'error' | 'warning';
  /** The file `line` is in (package catalogs only; same form as FlagEntry.file). */
  file?: string;
}

export interface FlagCatalog {
  entries: FlagEntry[];
  choiceLists: ChoiceList[];
  era: CatalogEra;
  diagnostics: CatalogDiagnostic[];
}

export type FlagFamily = 'attention' | 'moe' | 'gemm' | 'kv-cache' | 'sampling' | 'grammar' | 'speculative' | 'lora' | 'disaggregation' | 'other';

/** An LSP-style content change: replace `range` (0-based, UTF-16) of the previous source by `text`. */
export interface CatalogEdit {
  range: CatalogRange;
  text: string;
}

/**
 * argparse actions whose flag takes no value on the command line: argparse's own (help and
 * version included) and SGLang's deprecated-flag actions, which are declared with nargs=0.
 */
export const NO_VALUE_ACTIONS: ReadonlySet<string> = new Set([
  'store_true',
  'store_false',
  'store_const',
  'append_const',
  'count',
  'help',
  'version',
  'BooleanOptionalAction',
  'DeprecatedStoreTrueAction',
  'DeprecatedAction',
]);

/** True when the flag is written alone (`--enable-x`), never followed by a value. */
export function takesNoValue(e: Pick<FlagEntry, 'nargs' | 'action'>): boolean {
  return e.nargs === 0 || (!!e.action && NO_VALUE_ACTIONS.has(e.action));
}
