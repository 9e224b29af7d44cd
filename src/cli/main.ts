// The `dbhooks` command line: argv, files, stdin and the environment in; render() does the work.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "../config.js";
import { loadResources } from "../resources/registry.js";
import { render } from "./render.js";

const USAGE = `usage: dbhooks render [--status] <file.yaml|->...

Prints the children the sync hook would create for each Database or WebService in the files
(multi-document YAML or JSON; - reads stdin), as YAML for kubectl apply -f -. --status also prints the
computed status as comments. Initial passwords derive from DBHOOKS_CREDENTIALS_KEY, as in the service;
without it they are throwaway.`;

type Arguments = { files: string[]; withStatus: boolean } | { exit: number; message?: string };

function parseArguments(argv: readonly string[]): Arguments {
  const [command, ...rest] = argv;
  const help = command === "--help" || command === "-h" || rest.includes("--help") || rest.includes("-h");
  if (help) return { exit: 0 };
  if (command !== "render") return { exit: 2, message: command ? `unknown command ${command}` : undefined };
  const files = rest.filter((a) => a !== "--status");
  const unknown = files.find((f) => f.startsWith("--"));
  if (unknown) return { exit: 2, message: `unknown option ${unknown}` };
  if (files.length === 0) return { exit: 2, message: "no files given" };
  return { files, withStatus: rest.includes("--status") };
}

function readSource(name: string): { name: string; text: string } {
  return { name, text: readFileSync(name === "-" ? 0 : name, "utf8") };
}

function readInputs(files: readonly string[]) {
  try {
    return { config: loadConfig(process.env), sources: files.map(readSource) };
  } catch (error) {
    const readable = error instanceof ConfigError || (error instanceof Error && "code" in error);
    if (!readable) throw error;
    return { error: error.message };
  }
}

export function run(argv: readonly string[]): number {
  const args = parseArguments(argv);
  if ("exit" in args) {
    process.stderr.write(`${args.message ? `dbhooks: ${args.message}\n` : ""}${USAGE}\n`);
    return args.exit;
  }
  const inputs = readInputs(args.files);
  if ("error" in inputs) {
    process.stderr.write(`dbhooks: ${inputs.error}\n`);
    return 1;
  }
  const { stdout, errors } = render({
    sources: inputs.sources,
    resources: loadResources(),
    withStatus: args.withStatus,
    context: {
      now: new Date(),
      credentialsKey: inputs.config.credentialsKey ?? new Uint8Array(randomBytes(32)),
      finalBackupTimeoutSeconds: inputs.config.finalBackupTimeoutSeconds,
    },
  });
  process.stdout.write(stdout);
  for (const error of errors) process.stderr.write(`dbhooks: ${error}\n`);
  return errors.length > 0 ? 1 : 0;
}
