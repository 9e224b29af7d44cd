// The ceiling: the least any Node hook must do. A bare node:http server that reads the body, JSON.parse's
// it and answers JSON.stringify of an answer as large as dbhooks' own answer for that payload.
// Usage: node bench/ceiling.mjs <answers.json>, where answers.json maps a URL path to an answer object.
// Prints {"port": N} on stdout once it listens.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const answers = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8"));

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let request;
    try {
      request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const text = JSON.stringify(answers[req.url ?? ""] ?? { parent: request.parent?.metadata });
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
    res.end(text);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
