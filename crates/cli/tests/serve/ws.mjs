// A real ACP client (the official TypeScript SDK's client and its WebSocket
// stream, `@agentclientprotocol/sdk/experimental/ws-client`) driving
// `gemini-rs serve` over several WebSocket connections at once.
// Usage: node ws.mjs <scenario.json>
// The scenario: {"url": "ws://.../acp", "token": "..." (optional), "steps": [...]} where a step is
//   {"do": "connect", "as": "A"}, {"do": "disconnect", "conn": "A"},
//   {"do": "new", "conn": "A", "as": "a1", "cwd": "..."},
//   {"do": "mode", "session": "a1", "mode": "yolo"},
//   {"do": "prompts", "sessions": ["a1", "a2"], "text": "..."} (all at once),
//   {"do": "list", "conn": "A", "cwd": "..."},
//   {"do": "waitFiles", "dir": "...", "count": n} (the files of a folder once there are n).
// Prints one JSON object: each step's answer or error, the updates by session alias.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const log = { steps: [], updates: {}, ids: {} };
const connections = {};
const sessions = {}; // alias -> { conn, id }
const aliasOf = (id) => Object.keys(sessions).find((a) => sessions[a].id === id) ?? id;

// Node's WebSocket (undici) takes headers in its second argument.
class HeaderWebSocket {
  constructor(url, protocols, options) {
    return new globalThis.WebSocket(url, { protocols, headers: options?.headers });
  }
}

function connect() {
  const headers = scenario.token ? { Authorization: `Bearer ${scenario.token}` } : {};
  const stream = createWebSocketStream(scenario.url, { headers, WebSocket: HeaderWebSocket });
  const app = acp
    .client({ name: "gemini-rs-serve-test" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const option = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const alias = aliasOf(params.sessionId);
      (log.updates[alias] ??= []).push(params.update);
    });
  return app.connect(stream);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timer = setTimeout(() => {
  console.log(JSON.stringify({ ...log, error: "timeout" }));
  process.exit(3);
}, 90000);

async function step(s) {
  const session = acp.methods.agent.session;
  const agent = (alias) => connections[sessions[alias].conn].agent;
  switch (s.do) {
    case "connect": {
      connections[s.as] = connect();
      return connections[s.as].agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
    }
    case "disconnect":
      connections[s.conn].close();
      await Promise.race([connections[s.conn].closed, sleep(2000)]);
      return { closed: true };
    case "new": {
      const answer = await connections[s.conn].agent.request(session.new, { cwd: s.cwd, mcpServers: [] });
      sessions[s.as] = { conn: s.conn, id: answer.sessionId };
      log.ids[s.as] = answer.sessionId;
      return answer;
    }
    case "mode":
      return agent(s.session).request(session.setMode, { sessionId: sessions[s.session].id, modeId: s.mode });
    case "prompts":
      return Promise.all(
        s.sessions.map((alias) =>
          agent(alias).request(session.prompt, {
            sessionId: sessions[alias].id,
            prompt: [{ type: "text", text: s.text }],
          }),
        ),
      );
    case "list":
      return connections[s.conn].agent.request(session.list, { cwd: s.cwd });
    case "waitFiles": {
      // The files of a folder (one per SessionEnd hook run), as text.
      const texts = () =>
        existsSync(s.dir) ? readdirSync(s.dir).map((f) => readFileSync(`${s.dir}/${f}`, "utf8")) : [];
      for (let i = 0; i < 200 && texts().length < s.count; i++) await sleep(50);
      // A moment more: a file past the count would show here.
      await sleep(300);
      return { files: texts() };
    }
    default:
      throw new Error(`unknown step ${s.do}`);
  }
}

for (const s of scenario.steps) {
  try {
    log.steps.push({ do: s.do, answer: (await step(s)) ?? null });
  } catch (e) {
    log.steps.push({ do: s.do, error: { code: e.code ?? null, message: String(e.message ?? e) } });
  }
}
for (const c of Object.values(connections)) c.close();
clearTimeout(timer);
console.log(JSON.stringify(log));
process.exit(0);
