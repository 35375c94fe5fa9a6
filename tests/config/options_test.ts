// The option table against everything kept outside it: deno.json's `job` permission set, README's
// configuration table, the task names, and the parser's reading of every flag and variable.
import assert from "node:assert/strict";
import denoConfig from "../../deno.json" with { type: "json" };
import { type EnvReader, parsePortCommand, parseShipmentCommand } from "../../lib/config/job_config.ts";
import {
  JOB_COMMANDS,
  type JobKind,
  type OptionName,
  OPTIONS,
  optionsOf,
  type OptionSpec,
  PROCESS_VARIABLES,
} from "../../lib/config/options.ts";
import { helpText, usageLine, versionLine } from "../../lib/config/usage.ts";

const ROWS = Object.entries(OPTIONS) as [OptionName, OptionSpec][];
const JOB_A_SITE = {
  TRACKING_PORTAL_URL: "https://track.example/t",
  REPORTING_URL: "https://report.example/r.php",
  FRAME_SELECTOR: "#frame",
};

/** README's configuration table as cells, without the header and the separator. */
async function readmeRows(): Promise<string[][]> {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("\n## Configuration\n"));
  const table = section.slice(section.indexOf("\n|") + 1).split("\n\n")[0]!;
  return table.split("\n").slice(2).map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

/** The README row an option of the table calls for. */
function readmeRow(option: OptionSpec): string[] {
  const fallback = option.kind === "boolean" || option.kind === "repeatable" ? undefined : option;
  const defaultCell = fallback?.required
    ? `required (Job ${option.jobs === "shipment" ? "A" : "B"})`
    : fallback?.default !== undefined
    ? `\`${fallback.default}\``
    : option.defaultText ?? "";
  return [`\`${option.flag}\``, option.variable ? `\`${option.variable}\`` : "", defaultCell, option.readme];
}

Deno.test("options: the `job` permission set reads exactly the table's variables and the temporary folder's", () => {
  const allowed = denoConfig.permissions.job.env;
  const variables = ROWS.flatMap(([, option]) => option.variable ? [option.variable] : []);
  assert.equal(new Set(allowed).size, allowed.length, "no variable twice in deno.json");
  assert.deepEqual([...allowed].sort(), [...variables, ...PROCESS_VARIABLES].sort());
});

Deno.test("options: README's configuration table is the option table", async () => {
  assert.deepEqual(await readmeRows(), ROWS.map(([, option]) => readmeRow(option)));
});

Deno.test("options: one job name each, in the tasks, the usage line, the help and --version", () => {
  for (const kind of ["shipment", "port"] as const) {
    const name = JOB_COMMANDS[kind];
    assert.ok(name in denoConfig.tasks, name);
    assert.ok(usageLine(kind).startsWith(`usage: ${name} `));
    assert.ok(helpText(kind).startsWith(`usage: ${name} `));
    assert.equal(versionLine(kind, "1.2.3"), `${name} 1.2.3`);
  }
  assert.deepEqual(JOB_COMMANDS, { shipment: "shipment-tracking", port: "port-tracking" });
});

Deno.test("options: every row is well formed", () => {
  for (const [name, option] of ROWS) {
    assert.match(option.flag, /^--[a-z]+(-[a-z]+)*$/, name);
    if (option.variable !== undefined) assert.match(option.variable, /^[A-Z]+(_[A-Z]+)*$/, name);
    if (option.kind === "string") {
      assert.ok(!(option.required && option.default !== undefined), `${name}: required or a default`);
      assert.ok(!option.required || option.jobs !== "both", `${name}: required by one job`);
    }
  }
  assert.equal(new Set(ROWS.map(([, o]) => o.flag)).size, ROWS.length, "one row a flag");
});

// A valid value for every option that takes one, and what the parser then holds. Adding an option to the
// table without a sample here fails the first step.
const SAMPLES: Partial<Record<OptionName, [text: string, value: unknown]>> = {
  trackingPortalUrl: ["https://flag.example/t/", "https://flag.example/t"],
  reportingUrl: ["https://flag.example/r", "https://flag.example/r"],
  frameSelector: ["#flag", "#flag"],
  consentTimeout: ["4.5", 4_500],
  portUrl: ["http://flag.example/pcs/", "http://flag.example/pcs"],
  chromePath: ["/flag/chrome", "/flag/chrome"],
  browserUrl: ["ws://127.0.0.1:1/devtools/browser/x", "ws://127.0.0.1:1/devtools/browser/x"],
  pauseScale: ["0.5", 0.5],
  waitUntil: ["Ready", "ready"],
  httpTimeout: ["7", 7_000],
  waitTimeout: ["8", 8_000],
  allowUrl: ["^https://a\\.example/", ["^https:\\/\\/a\\.example\\/"]],
  denyUrl: ["\\.zip$", ["\\.zip$"]],
  failOnText: ["NO CONTAINER FOUND", ["NO CONTAINER FOUND"]],
  userAgent: ["capture-jobs/1 (ops@example.com)", "capture-jobs/1 (ops@example.com)"],
  report: ["out/run report.html", "out/run report.html"],
  tsaUrl: ["http://tsa.example/tsr", ["http://tsa.example/tsr"]],
  archive: ["MHTML", "mhtml"],
  summaryJson: ["out/summary.json", "out/summary.json"],
  metricsFile: ["/var/lib/node-exporter/capture.prom", "/var/lib/node-exporter/capture.prom"],
  pingUrl: ["https://hc-ping.example/5f1c0e1e", "https://hc-ping.example/5f1c0e1e"],
  retries: ["2", 2],
  concurrency: ["3", 3],
  browsers: ["1", 1],
};

/** Where the parsed value of each option lands in a job's configuration. */
function configValue(config: Record<string, unknown>, name: OptionName): unknown {
  const timings = config.timings as Record<string, unknown>;
  const value = {
    consentTimeout: timings.consentTimeoutMs,
    pauseScale: timings.pauseScale,
    waitUntil: timings.waitUntil,
    httpTimeout: timings.httpTimeoutMs,
    waitTimeout: timings.waitTimeoutMs,
    allowUrl: config.allowUrls,
    denyUrl: config.denyUrls,
    report: config.reportFile,
    summaryJson: config.summaryFile,
    tsaUrl: config.tsaUrls,
  }[name as string] ?? config[name];
  return Array.isArray(value) ? value.map((item) => item instanceof RegExp ? item.source : item) : value;
}

Deno.test("options: the parser reads each job's options from the table, flag over variable", async (t) => {
  const parsers: Record<JobKind, (args: string[], env: EnvReader) => unknown> = {
    shipment: parseShipmentCommand,
    port: parsePortCommand,
  };
  const run = (kind: JobKind, args: string[], vars: Record<string, string>) => {
    const command = parsers[kind](["in.csv", "out", "job"].concat(args), (name) => vars[name]) as {
      action: string;
      config: Record<string, unknown>;
    };
    assert.equal(command.action, "run");
    return command.config;
  };

  await t.step("a sample for every option with a value", () => {
    for (const [name, option] of ROWS) assert.equal(name in SAMPLES, option.kind !== "boolean", name);
  });

  for (const kind of ["shipment", "port"] as const) {
    const site = kind === "shipment" ? JOB_A_SITE : {};
    const own = optionsOf(kind);
    await t.step(`${kind}: each option by flag and by variable; the flag wins`, () => {
      for (const [name, option] of own) {
        if (name === "help" || name === "version") continue;
        const [text, value] = SAMPLES[name] ?? ["", true];
        const flag = option.kind === "boolean" ? option.flag : `${option.flag}=${text}`;
        assert.deepEqual(configValue(run(kind, [flag], site), name), value, `${kind} ${option.flag}`);
        if (option.variable === undefined) continue;
        const vars = { ...site, [option.variable]: option.kind === "boolean" ? "true" : text };
        assert.deepEqual(configValue(run(kind, [], vars), name), value, `${kind} ${option.variable}`);
        if (option.kind === "boolean") continue;
        // A flag wins and its variable is then not even read: a malformed one must not matter.
        const malformed = { ...site, [option.variable]: "(" };
        assert.deepEqual(
          configValue(run(kind, [flag], malformed), name),
          value,
          `${kind} ${option.flag} wins`,
        );
      }
    });

    await t.step(`${kind}: each option's default, or nothing`, () => {
      const config = run(kind, [], site);
      for (const [name, option] of own) {
        if (option.kind !== "string" || option.required) continue;
        const expected = option.default === undefined ? undefined : option.parse(option.default, option.flag);
        assert.deepEqual(configValue(config, name), expected, name);
      }
    });

    await t.step(`${kind}: the other job's flags are unknown`, () => {
      const other = ROWS.filter(([name]) => !own.some(([mine]) => mine === name));
      assert.ok(other.length > 0);
      for (const [, option] of other) {
        assert.throws(() => run(kind, [option.flag], site), new RegExp(`Unknown option '${option.flag}'`));
      }
    });

    await t.step(`${kind}: --help has one line for each of the job's options, in table order`, () => {
      const lines = helpText(kind).split("\n").filter((line) => /^ {2}--/.test(line));
      assert.deepEqual(lines.map((line) => line.trim().split(" ")[0]), own.map(([, option]) => option.flag));
      for (const [[, option], line] of own.map((row, i) => [row, lines[i]!] as const)) {
        const help = typeof option.help === "string" ? option.help : option.help[kind];
        assert.ok(line.endsWith(help), line);
        if (option.variable) assert.ok(line.includes(` ${option.variable} `), line);
        if (option.kind === "string" && option.default !== undefined) {
          assert.ok(line.includes(`(default ${option.default}`), line);
        }
        if (option.kind === "string" && option.required) assert.ok(line.includes("(required)"), line);
      }
    });
  }
});
