/**
 * The one way a caught value becomes text. Anything can be thrown (strings, objects, undefined),
 * so `(e as Error).message` can print "undefined" and `e.message` does not type-check.
 */

/** An Error's message, else the value as a string. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** For logs: the stack when there is one (it says where the error came from), else errorMessage. */
export function errorDetail(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}
