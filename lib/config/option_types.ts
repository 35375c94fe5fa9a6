/**
 * The shape of a row of the option table (`options.ts`): flag, variable, job, help and README text, kind,
 * default and validation.
 *
 * @module
 */

/** Which job the command line is for: `shipment` is Job A, `port` is Job B. */
export type JobKind = "shipment" | "port";

/** What the option table declares about every option. */
interface OptionBase {
  /** The long flag; `--name=value` and `--name value` both work. */
  flag: `--${string}`;
  /** A one-letter alias (`-h`). */
  short?: string;
  /** The environment variable a flag wins over; none for options that only make sense per run. */
  variable?: string;
  /** Job A (`shipment`), Job B (`port`) or both: the other job's parser rejects the flag and never reads the variable. */
  jobs: JobKind | "both";
  /** The `--help` line's text, or one per job when the option means something else in each. */
  help: string | Readonly<Record<JobKind, string>>;
  /** The "meaning" column of README's configuration table. */
  readme: string;
  /** README's "default" column when the default is not a value one could type ("off", "start a …"). */
  defaultText?: string;
}

/** A flag without a value; its variable, if any, takes true/false, 1/0, yes/no or on/off. */
export interface BooleanOption extends OptionBase {
  /** Marks a boolean option. */
  kind: "boolean";
}

/** An option with one value: the flag, else the variable (an empty one is unset), else the default. */
export interface StringOption<T> extends OptionBase {
  /** Marks an option with one value. */
  kind: "string";
  /** The value's placeholder in `--help` (`URL`, `S`). */
  arg: string;
  /** The value used when neither flag nor variable gives one, as a user would type it. */
  default?: string;
  /** The job cannot run without it: missing or blank is a usage error. */
  required?: true;
  /** Validates the text (`name` is the flag, for the message); throws a one-line `UsageError`. */
  parse(text: string, name: string): T;
}

/** An option that may repeat; its variable holds one value a line (blank lines skipped). */
export interface RepeatableOption<T> extends OptionBase {
  /** Marks a repeatable option. */
  kind: "repeatable";
  /** The value's placeholder in `--help`. */
  arg: string;
  /** Validates one value, as {@linkcode StringOption.parse} does. */
  parse(text: string, name: string): T;
}

/** One row of the option table. */
export type OptionSpec = BooleanOption | StringOption<unknown> | RepeatableOption<unknown>;
