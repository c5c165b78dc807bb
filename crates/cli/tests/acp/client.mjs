// A real ACP client (the official TypeScript SDK) driving `gemini-rs --acp`.
// Usage: node client.mjs <scenario.json>
// The scenario: {"command": [...], "cwd": "...", "fs": bool, "permission": "allow_once" | ...,
//   "prompts": ["..."], "cancelOnRun": bool, "load": "<session id>", "mcpServers": [...],
//   "configs": [{"configId": "model", "value": "..."}], "mode": "<mode id>",
//   "writeAnswer": "null" (answer fs/write_text_file with a null result)}.
// Prints one JSON object: the answers, the updates, the permission requests and the
// fs calls, for the Rust test to check.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const agentProcess = spawn(scenario.command[0], scenario.command.slice(1), {
  cwd: scenario.cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));
const log = { updates: [], permissions: [], reads: [], writes: [], answers: {} };
const files = new Map(Object.entries(scenario.files ?? {}));
let onRunning = null;
let onPermission = null;

const app = acp
  .client({ name: "gemini-rs-test" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    log.permissions.push(params);
    if (scenario.permission === "never") {
      // Never answer; cancel the prompt instead.
      if (onPermission) {
        onPermission();
        onPermission = null;
      }
      return new Promise(() => {});
    }
    const option = params.options.find((o) => o.kind === scenario.permission);
    return option
      ? { outcome: { outcome: "selected", optionId: option.optionId } }
      : { outcome: { outcome: "cancelled" } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    log.reads.push(params.path);
    if (!files.has(params.path)) {
      throw acp.RequestError.resourceNotFound(params.path);
    }
    return { content: files.get(params.path) };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    log.writes.push(params);
    files.set(params.path, params.content);
    return scenario.writeAnswer === "null" ? null : {};
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    log.updates.push(params.update);
    const u = params.update;
    const trigger = scenario.cancelOnUpdate
      ? JSON.stringify(u).includes(scenario.cancelOnUpdate)
      : u.sessionUpdate === "tool_call_update" && u.status === "in_progress";
    if (onRunning && trigger) {
      onRunning();
      onRunning = null;
    }
  });

const timer = setTimeout(() => {
  console.log(JSON.stringify({ ...log, error: "timeout" }));
  process.exit(3);
}, 60000);

try {
  await app.connectWith(stream, async (ctx) => {
    log.answers.initialize = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: !!scenario.fs, writeTextFile: !!scenario.fs } },
    });
    let sessionId;
    if (scenario.load) {
      log.answers.load = await ctx.request(acp.methods.agent.session.load, {
        sessionId: scenario.load,
        cwd: scenario.cwd,
        mcpServers: scenario.mcpServers ?? [],
      });
      sessionId = scenario.load;
    } else {
      const created = await ctx.request(acp.methods.agent.session.new, {
        cwd: scenario.cwd,
        mcpServers: scenario.mcpServers ?? [],
      });
      log.answers.new = created;
      sessionId = created.sessionId;
    }
    if (scenario.mode) {
      try {
        log.answers.setMode = await ctx.request(acp.methods.agent.session.setMode, {
          sessionId,
          modeId: scenario.mode,
        });
      } catch (e) {
        log.answers.setMode = { code: e.code, message: e.message };
      }
    }
    // Config options to set, in order: each answer, or its error.
    log.answers.configs = [];
    for (const { configId, value } of scenario.configs ?? []) {
      try {
        log.answers.configs.push(
          await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value }),
        );
      } catch (e) {
        log.answers.configs.push({ code: e.code, message: e.message });
      }
    }
    log.answers.prompts = [];
    for (const text of scenario.prompts ?? []) {
      if (scenario.cancelOnRun || (scenario.cancelOnUpdate && log.answers.prompts.length === 0)) {
        onRunning = () => ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      }
      if (scenario.permission === "never") {
        onPermission = () => ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      }
      const answer = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      log.answers.prompts.push(answer);
    }
    try {
      await ctx.request("session/unknown_method", { sessionId });
    } catch (e) {
      log.answers.unknownMethod = { code: e.code, message: e.message };
    }
    log.sessionId = sessionId;
  });
} catch (e) {
  log.error = String(e?.stack ?? e);
}
clearTimeout(timer);
agentProcess.stdin.end();
const exited = await new Promise((resolve) => {
  const t = setTimeout(() => resolve(null), 5000);
  agentProcess.on("exit", (code) => {
    clearTimeout(t);
    resolve(code);
  });
});
log.exitCode = exited;
console.log(JSON.stringify(log));
process.exit(0);
