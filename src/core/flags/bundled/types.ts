/**
 * The bundled catalog of SGLang releases: facts extracted from each release's server_args.py (and,
 * for the newest layout, arg_groups/), merged so that each fact carries the releases where it holds.
 * Plain JSON data; built by scripts/build-sglang-catalog.ts, read by the language server and the CLI.
 * No help text of SGLang's is stored (that prose is not ours to ship); our own lives in bundledHelp.ts.
 */
import type { CatalogEra, ChoiceValue } from '../types';

export const BUNDLED_SCHEMA = 1;

export interface BundledRelease {
  /** Normalised version ("0.5.6", "0.5.0rc2"), or "main" for an unreleased snapshot. */
  version: string;
  /** Commit date of the release (YYYY-MM-DD). */
  date: string;
  /** Commit the facts were read from. */
  commit?: string;
  /** The shape of server_args.py in that release ("split" for the arg_groups layout). */
  layout: CatalogEra | 'split';
  /** Flags the release declares. */
  flags: number;
}

/** Inclusive [first, last] indices into `releases`. */
export type Span = [number, number];

/** The static part of a flag in one range of releases: what a FlagEntry says apart from location and help. */
export interface BundledFacts {
  /** The field in these releases, when it is not the flag's (newest) field. */
  field?: string;
  aliases?: string[];
  negations?: string[];
  type?: string;
  action?: string;
  nargs?: string | number;
  default?: unknown;
  /** A short default expression (`ServerArgs.x`, `None`) when the default is not a literal. */
  defaultExpr?: string;
  required?: boolean;
  deprecated?: boolean;
  replacement?: string;
  resolvable?: boolean;
  group?: string;
  /** Index into `choiceSets`. */
  choices?: number;
  dynamicChoices?: boolean;
  deprecatedChoices?: { value: ChoiceValue; replacement?: string }[];
}

export interface BundledVariant {
  in: Span[];
  facts: BundledFacts;
}

export interface BundledFlag {
  /** Primary option string. */
  flag: string;
  /** argparse dest / dataclass field. */
  field: string;
  /** Each a distinct set of facts with the releases where it holds; their spans never overlap. */
  variants: BundledVariant[];
}

/** An environment variable of the engine (vLLM's envs.py) with the releases where each set of facts holds. */
export interface BundledEnvVar {
  name: string;
  variants: { in: Span[]; facts: { type: string; default?: unknown; choices?: ChoiceValue[] } }[];
  /** The flag that took over its job (its use is then deprecated, and ignored once it is gone). */
  replacement?: string;
}

export type BundledEngine = 'sglang' | 'vllm';

export interface BundledCatalogData {
  schema: typeof BUNDLED_SCHEMA;
  engine: BundledEngine;
  /** Ascending by version; "main" last. */
  releases: BundledRelease[];
  /** Distinct choice lists, shared by flags and releases. */
  choiceSets: ChoiceValue[][];
  flags: BundledFlag[];
  /** Environment variables (vLLM only). */
  env?: BundledEnvVar[];
}
