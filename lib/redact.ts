/**
 * Secrets out of log lines and error messages. A browser pool's address carries its access token
 * (`ws://pool:3000/?token=…`); the log is uploaded to the job server and error messages reach cron mail, so
 * neither may show it.
 *
 * @module
 */

/** Query parameters whose value is a credential: browserless's `token`, other services' API keys. */
const SECRET_PARAMETER =
  /([?&](?:token|access[_-]?token|api[_-]?key|key|secret|password|auth)=)[^&#\s"'<>]*/gi;

/** The password of a URL's user info (`ws://user:password@host`). */
const USER_INFO_PASSWORD = /(\/\/[^/?#\s:@"'<>]*:)[^/?#\s@"'<>]*@/g;

/** What a secret reads as once redacted. */
export const REDACTED = "***";

/**
 * `text` with the value of every credential parameter and URL password replaced by `***`; the rest of each
 * URL stays, so an operator still sees which host and path were meant.
 *
 * @example
 * ```ts
 * redactSecrets("Cannot connect to ws://pool:3000/?token=s3cret&timeout=60000");
 * // "Cannot connect to ws://pool:3000/?token=***&timeout=60000"
 * ```
 */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PARAMETER, `$1${REDACTED}`).replace(USER_INFO_PASSWORD, `$1${REDACTED}@`);
}
