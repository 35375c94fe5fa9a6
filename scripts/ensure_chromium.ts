/**
 * Makes sure the browser and the PDF text tool the tests and the demo need are installed: installs
 * Debian's `chromium` and `poppler-utils` when it can (root or password-less sudo with apt-get), and
 * otherwise prints the exact command to run. The jobs themselves never install anything.
 *
 * @module
 */
import { CHROMIUM_LOCATIONS, findChromium } from "../lib/browser/chromium/path.ts";

/**
 * Installs what is missing when it can; returns false (after printing the command to run) when it cannot.
 */
export async function ensureBrowserTools(): Promise<boolean> {
  const packages: string[] = [];
  try {
    findChromium(Deno.env.get("CHROME_PATH") || undefined, CHROMIUM_LOCATIONS);
  } catch {
    packages.push("chromium");
  }
  if (!await runs("pdftotext", ["-v"])) packages.push("poppler-utils");

  if (packages.length > 0) {
    const command = `apt-get update && apt-get install -y ${packages.join(" ")}`;
    const sudo = Deno.uid() === 0 ? [] : ["sudo", "-n"];
    if (!await runs("apt-get", ["--version"]) || (sudo.length > 0 && !await runs("sudo", ["-n", "true"]))) {
      console.error(`Missing ${packages.join(", ")}. Install with:\n  sudo ${command}`);
      return false;
    }
    console.error(`Installing ${packages.join(", ")} (${command})`);
    for (const args of [["update", "-qq"], ["install", "-y", "-qq", ...packages]]) {
      const [program, ...rest] = [...sudo, "apt-get", ...args];
      const { success } = await new Deno.Command(program!, {
        args: rest,
        env: { DEBIAN_FRONTEND: "noninteractive" },
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      if (!success) {
        console.error(`Installing failed. Run it yourself:\n  sudo ${command}`);
        return false;
      }
    }
  }
  return true;
}

if (import.meta.main && !await ensureBrowserTools()) Deno.exit(1);

async function runs(program: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(program, { args, stdout: "null", stderr: "null" }).output()).success;
  } catch {
    return false;
  }
}
