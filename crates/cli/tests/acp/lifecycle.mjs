// A real ACP client (the official TypeScript SDK) driving `gemini-rs --acp`
// through a list of session lifecycle steps.
// Usage: node lifecycle.mjs <scenario.json>
// The scenario: {"command": [...], "cwd": "...", "steps": [{"do": ..., ...}]} where a step is
//   {"do": "new", "as": "a", "mcpServers": [...]}, {"do": "prompt", "session": "a", "text": "..."},
//   {"do": "close" | "delete", "session": "a"}, {"do": "resume" | "load", "session": "a"},
//   {"do": "fork", "session": "a", "as": "b"}, {"do": "list", "cwd": "..."} (no cwd: all),
//   {"do": "waitFile", "file": "..."}, {"do": "alive", "pidFile": "..."}.
// Prints one JSON object: each step's answer or error, the updates (with their session), every
// line on the wire in order (for what came before which answer), and the session ids by alias.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const agentProcess = spawn(scenario.command[0], scenario.command.slice(1), {
  cwd: scenario.cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
const log = { steps: [], updates: [], wire: [], ids: {} };

// The wire, both ways, line by line.
const summary = (dir, line) => {
  try {
    const m = JSON.parse(line);
    return {
      dir,
      id: m.id ?? null,
      method: m.method ?? null,
      sessionId: m.params?.sessionId ?? null,
      update: m.params?.update?.sessionUpdate ?? null,
      error: m.error ? m.error.code : null,
    };
  } catch {
    return { dir, raw: line };
  }
};
const write = agentProcess.stdin.write.bind(agentProcess.stdin);
agentProcess.stdin.write = (chunk, ...rest) => {
  for (const line of Buffer.from(chunk).toString().split("\n").filter((l) => l.trim())) {
    log.wire.push(summary("out", line));
  }
  return write(chunk, ...rest);
};
let pending = "";
agentProcess.stdout.on("data", (chunk) => {
  pending += chunk.toString();
  let at;
  while ((at = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, at);
    pending = pending.slice(at + 1);
    if (line.trim()) log.wire.push(summary("in", line));
  }
});

const stream = acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));
const app = acp
  .client({ name: "gemini-rs-lifecycle-test" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const option = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    log.updates.push({ sessionId: params.sessionId, ...params.update });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timer = setTimeout(() => {
  console.log(JSON.stringify({ ...log, error: "timeout" }));
  process.exit(3);
}, 90000);

/** Whether the process whose id `file` holds runs (a zombie does not count). */
function alive(file) {
  const pid = readFileSync(file, "utf8").trim();
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function step(ctx, s) {
  const id = () => log.ids[s.session] ?? s.session;
  const session = acp.methods.agent.session;
  switch (s.do) {
    case "new": {
      const answer = await ctx.request(session.new, { cwd: scenario.cwd, mcpServers: s.mcpServers ?? [] });
      log.ids[s.as] = answer.sessionId;
      return answer;
    }
    case "prompt":
      return ctx.request(session.prompt, { sessionId: id(), prompt: [{ type: "text", text: s.text }] });
    case "close":
      return ctx.request(session.close, { sessionId: id() });
    case "delete":
      return ctx.request(session.delete, { sessionId: id() });
    case "resume":
      return ctx.request(session.resume, { sessionId: id(), cwd: scenario.cwd, mcpServers: [] });
    case "load":
      return ctx.request(session.load, { sessionId: id(), cwd: scenario.cwd, mcpServers: [] });
    case "fork": {
      // Unstable: not among the SDK's stable method names.
      const answer = await ctx.request("session/fork", { sessionId: id(), cwd: scenario.cwd, mcpServers: [] });
      log.ids[s.as] = answer.sessionId;
      return answer;
    }
    case "list":
      return ctx.request(session.list, s.cwd ? { cwd: s.cwd } : {});
    case "waitFile":
      for (let i = 0; i < 200 && !existsSync(s.file); i++) await sleep(50);
      return { exists: existsSync(s.file) };
    case "alive":
      return { alive: alive(s.pidFile) };
    default:
      throw new Error(`unknown step ${s.do}`);
  }
}

try {
  await app.connectWith(stream, async (ctx) => {
    log.initialize = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    for (const s of scenario.steps) {
      try {
        log.steps.push({ do: s.do, answer: (await step(ctx, s)) ?? null });
      } catch (e) {
        log.steps.push({ do: s.do, error: { code: e.code ?? null, message: String(e.message ?? e) } });
      }
    }
  });
} catch (e) {
  log.error = String(e?.stack ?? e);
}
clearTimeout(timer);
agentProcess.stdin.end();
log.exitCode = await new Promise((resolve) => {
  const t = setTimeout(() => resolve(null), 5000);
  agentProcess.on("exit", (code) => {
    clearTimeout(t);
    resolve(code);
  });
});
console.log(JSON.stringify(log));
process.exit(0);
