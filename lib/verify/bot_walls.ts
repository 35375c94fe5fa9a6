/**
 * The bot-check, captcha and access-denied walls `--verify` knows: a short list of markers, each one precise
 * on its own (a wall's own title, wording, challenge resource or response header), so that an ordinary page
 * is never taken for one. Script or frame addresses that ordinary pages also load (a reCAPTCHA on a contact
 * form) are left out on purpose. `tests/verify/bot_walls_test.ts` runs the list over every ordinary page of
 * the sandbox and the tests.
 *
 * @module
 */

/** What a page shows of itself, as `--verify` looks for a wall. */
export interface PageSignals {
  /** The document's title. */
  title: string;
  /** The start of its visible text, white space collapsed. */
  text: string;
  /** The addresses of its scripts and frames (the tab's frames included). */
  resources: readonly string[];
  /** The headers of the answer that brought the page, names in lower case. */
  headers: Readonly<Record<string, string>>;
}

/** One wall and what gives it away; any one of its markers is enough. */
interface BotWall {
  /** How the failure names it. */
  name: string;
  title?: RegExp;
  text?: RegExp;
  resource?: RegExp;
  header?: readonly [name: string, value: RegExp];
}

/** How much of a page's visible text is looked at: a wall says what it is at its top. */
export const SIGNAL_TEXT_CHARS = 2_000;

/** The walls, the commonest first. */
const BOT_WALLS: readonly BotWall[] = [
  {
    name: "Cloudflare challenge",
    title: /^(just a moment\.\.\.|just a moment…|attention required! \| cloudflare)$/i,
    text: /checking if the site connection is secure|verify you are human by completing the action below/i,
    resource: /\/cdn-cgi\/challenge-platform\//,
    header: ["cf-mitigated", /^challenge$/i],
  },
  { name: "Cloudflare block", text: /sorry, you have been blocked.*cloudflare ray id/i },
  { name: "Imperva Incapsula", text: /incapsula incident id/i, resource: /\/_Incapsula_Resource\b/ },
  {
    name: "Akamai access denied",
    text: /you don't have permission to access .* on this server\. reference #\s*[\d.a-f]+/i,
  },
  { name: "PerimeterX captcha", text: /press & hold to confirm you are a human/i, resource: /px-captcha/ },
  { name: "DataDome captcha", resource: /^https:\/\/(geo\.)?captcha-delivery\.com\// },
  { name: "Sucuri firewall", title: /^sucuri website firewall - access denied$/i },
  { name: "AWS WAF captcha", resource: /\.awswaf\.com\/.*\/(captcha|challenge)\.js/ },
];

/** The wall `signals` show, by name ("Cloudflare challenge"), or undefined for an ordinary page. */
export function botWallIn(signals: PageSignals): string | undefined {
  const title = signals.title.trim();
  const wall = BOT_WALLS.find((wall) =>
    (wall.title?.test(title) ?? false) ||
    (wall.text?.test(signals.text) ?? false) ||
    (wall.resource !== undefined && signals.resources.some((url) => wall.resource!.test(url))) ||
    (wall.header !== undefined && wall.header[1].test(signals.headers[wall.header[0]] ?? ""))
  );
  return wall?.name;
}
