import assert from "node:assert/strict";
import { MAX_PAUSE_SCALE, MAX_TIMEOUT_S } from "../../lib/timings.ts";
import { helpText, usageLine } from "../../lib/config/usage.ts";

interface Option {
  flag: string;
  variable?: string;
  default?: string;
}

const COMMON: Option[] = [
  { flag: "--chrome-path", variable: "CHROME_PATH" },
  { flag: "--browser-url", variable: "CHROME_WS_ENDPOINT" },
  { flag: "--pause-scale", variable: "CAPTURE_PAUSE_SCALE", default: "default 1" },
  { flag: "--http-timeout", variable: "CAPTURE_HTTP_TIMEOUT", default: "default 30" },
  { flag: "--wait-timeout", variable: "CAPTURE_WAIT_TIMEOUT", default: "default 20" },
  { flag: "--allow-url", variable: "CAPTURE_ALLOW_URL", default: "repeatable" },
  { flag: "--deny-url", variable: "CAPTURE_DENY_URL", default: "repeatable" },
  { flag: "--tagged-pdf", variable: "CAPTURE_TAGGED_PDF", default: "default off" },
  { flag: "--check" },
  { flag: "--help" },
  { flag: "--version" },
];
const SHIPMENT_ONLY: Option[] = [
  { flag: "--tracking-portal-url", variable: "TRACKING_PORTAL_URL", default: "required" },
  { flag: "--reporting-url", variable: "REPORTING_URL", default: "required" },
  { flag: "--frame-selector", variable: "FRAME_SELECTOR", default: "required" },
  { flag: "--consent-timeout", variable: "CAPTURE_CONSENT_TIMEOUT", default: "default 3" },
  { flag: "--visible" },
];
const PORT_ONLY: Option[] = [
  { flag: "--port-url", variable: "PORT_URL", default: "default https://cpatos.gov.bd/pcs" },
];

/** The help line that documents `flag`. */
function lineOf(help: string, flag: string): string {
  const lines = help.split("\n").filter((line) =>
    line.trimStart().startsWith(`${flag} `) || line.trim() === flag
  );
  assert.equal(lines.length, 1, `exactly one help line for ${flag}`);
  return lines[0]!;
}

Deno.test("usage", async (t) => {
  for (
    const [kind, own, other, command] of [
      ["shipment", SHIPMENT_ONLY, PORT_ONLY, "shipment-tracking"],
      ["port", PORT_ONLY, SHIPMENT_ONLY, "port-tracking"],
    ] as const
  ) {
    await t.step(`${kind}: every option of the job with its variable and default`, () => {
      const help = helpText(kind);
      for (const option of [...own, ...COMMON]) {
        const line = lineOf(help, option.flag);
        if (option.variable) assert.ok(line.includes(option.variable), `${option.flag}: ${line}`);
        if (option.default) assert.ok(line.includes(option.default), `${option.flag}: ${line}`);
      }
    });

    await t.step(`${kind}: no option of the other job`, () => {
      const help = helpText(kind);
      for (const option of other) {
        assert.equal(help.includes(option.flag), false, option.flag);
        if (option.variable) assert.equal(help.includes(option.variable), false, option.variable);
      }
    });

    await t.step(`${kind}: the positional arguments and CREDITS_USED default`, () => {
      const help = helpText(kind);
      assert.ok(
        help.startsWith(
          `usage: ${command} INPUT.csv OUTPUT_DIR JOB_ID [API_BASE_URL] [USER_ID] [CREDITS_USED]`,
        ),
      );
      for (const name of ["INPUT.csv", "OUTPUT_DIR", "JOB_ID", "API_BASE_URL", "USER_ID"]) {
        assert.match(help, new RegExp(`^  ${name.replace(".", "\\.")}\\s`, "m"), name);
      }
      assert.match(help, /^ {2}CREDITS_USED\s.*default 0/m);
      assert.ok(help.includes("stop_JOB_ID.txt"));
    });

    await t.step(`${kind}: exit codes 0, 1 and 130`, () => {
      const help = helpText(kind);
      const codes = help.slice(help.indexOf("Exit codes:"));
      assert.ok(help.includes("Exit codes:"));
      assert.match(codes, /^ {2}0\s+\S/m);
      assert.match(codes, /^ {2}1\s+\S/m);
      assert.match(codes, /^ {2}130\s+.*stop/m);
    });

    await t.step(`${kind}: every signal that stops a run, SIGHUP too`, () => {
      assert.match(helpText(kind), /^ {2}130\s+stopped by the stop file, SIGINT, SIGTERM or SIGHUP$/m);
    });

    await t.step(`${kind}: the maximums of the timeouts and the pause scale`, () => {
      const help = helpText(kind);
      assert.ok(help.includes(`Timeouts are at most ${MAX_TIMEOUT_S} seconds`), help);
      assert.ok(help.includes(`--pause-scale at most ${MAX_PAUSE_SCALE}`), help);
    });

    await t.step(`${kind}: how a variable carries several URL expressions`, () => {
      assert.ok(helpText(kind).includes("one regular expression a line"));
    });

    await t.step(`${kind}: the usage line is one line and names the command`, () => {
      const line = usageLine(kind);
      assert.doesNotMatch(line, /\n/);
      assert.ok(line.startsWith(`usage: ${command} INPUT.csv OUTPUT_DIR JOB_ID`), line);
      assert.ok(line.includes("--help"));
      assert.equal(line.includes("--visible"), kind === "shipment");
    });
  }

  await t.step("what each deadline bounds, as each job uses it", () => {
    assert.match(lineOf(helpText("shipment"), "--http-timeout"), /per HTTP request and page load/);
    assert.match(lineOf(helpText("shipment"), "--wait-timeout"), /per element wait and frame load/);
    // Job B loads no page over HTTP in the browser: its report is a local file or handed over CDP.
    assert.match(lineOf(helpText("port"), "--http-timeout"), /per HTTP request \(/);
    assert.match(lineOf(helpText("port"), "--wait-timeout"), /per element wait and report load/);
  });

  await t.step("the help ends with a newline and has no trailing spaces", () => {
    for (const kind of ["shipment", "port"] as const) {
      const help = helpText(kind);
      assert.ok(help.endsWith("\n"));
      assert.deepEqual(help.split("\n").filter((line) => / +$/.test(line)), []);
    }
  });
});
