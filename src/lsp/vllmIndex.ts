/**
 * The catalog index of a vLLM release: vLLM's own argv pre-processing accepts what argparse alone
 * would not, so lookups first spell an option as vLLM does before parsing: underscores in a long
 * name become dashes (`--max_model_len`), and a dotted key of a JSON config flag
 * (`--compilation-config.cudagraph_mode`) is that flag.
 */
import type { FlagEntry } from '../core/flags';
import { CatalogIndex } from './catalogIndex';

/** JSON-valued config flags take dotted keys. */
function takesKeys(e: FlagEntry): boolean {
  return e.type === 'json' || /(^|\.)(from_cli|loads)$/.test(e.type ?? '') || /_config$/.test(e.field);
}

export class VllmCatalogIndex extends CatalogIndex {
  override resolve(option: string): { entry: FlagEntry; abbreviationOf?: string } | undefined {
    const direct = super.resolve(option);
    if (direct || !option.startsWith('--')) return direct;
    const dot = option.indexOf('.');
    const base = (dot > 0 ? option.slice(0, dot) : option).replace(/_/g, '-');
    if (dot > 0) {
      const r = super.resolve(base);
      return r && takesKeys(r.entry) ? { entry: r.entry } : undefined;
    }
    return base !== option ? super.resolve(base) : undefined;
  }
}
