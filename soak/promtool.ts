/**
 * `promtool check metrics` on a run's `--metrics-file`: Prometheus's own reading of the file, as the tests of
 * `lib/run/watch/metrics_text.ts` have it. A missing promtool is a finding, never a check skipped.
 *
 * @module
 */
import { promtoolCheck, tool } from "../tests/helpers/prometheus_tools.ts";

/** Debian's promtool (package prometheus), on `PATH` or in /usr/bin. @throws {Error} when it is missing */
const findPromtool = () => tool("promtool", "prometheus");

/**
 * What `promtool check metrics` finds in `text`, in one line; undefined when it passes (exit 0, nothing
 * said). When promtool is not installed (`find` throws) or cannot run, that is what it finds.
 */
export async function promtoolFindings(
  text: string,
  find: () => string = findPromtool,
): Promise<string | undefined> {
  let promtool: string;
  try {
    promtool = find();
  } catch {
    return "promtool is not installed, and the soak checks every --metrics-file with it: " +
      "apt-get install prometheus (bash .ci/run installs it without starting its service)";
  }
  try {
    const { code, said } = await promtoolCheck(promtool, text);
    if (code === 0 && said === "") return undefined;
    return `promtool check metrics exited ${code}${
      said === "" ? "" : `: ${said.replace(/\s*\n\s*/g, "; ")}`
    }`;
  } catch (error) {
    return `promtool check metrics could not run: ${error instanceof Error ? error.message : error}`;
  }
}
