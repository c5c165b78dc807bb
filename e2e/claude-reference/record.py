#!/usr/bin/env python3
"""Records what Claude Code's hooks see and do, as goldens for
crates/cli/tests/claude_reference.rs. Not part of CI.

Plays each session of crates/cli/tests/fixtures/claude-reference/scenarios.json
to Claude Code (REF_CLAUDE, 2.1.197) offline against a fake Messages server
that streams the scripted model turns over SSE as the Messages API does; the
hooks of every event run fixtures/claude-reference/hook.py from the project's
.claude/settings.json (a scenario's `http` events run it behind http hooks the
fake server answers, at /hook/<mode>, from the user's or the project's
settings; an `error` turn answers with that status and body; a turn's
`ours` is what the test's fake model answers gemini-rs instead, e.g. a
sub-agent's `complete_task` call). A scenario's `prompt_hooks` add a
`prompt` hook to those events, whose requests get its `judge` answers (the
scenario's `order` tells the test how they interleave with the turns). Writes fixtures/claude-reference/<name>.json: every hook
input (ids, paths, times normalised), the markers each model request newly
carries (what a decision fed back to the model), the files the session left.

Usage: REF_CLAUDE=... [SCN=other-scenarios.json] python3 e2e/claude-reference/record.py [NAME...]"""
import json, os, re, shutil, subprocess, sys, tempfile, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "crates/cli/tests/fixtures/claude-reference")
MARK = re.compile(r"MARK-[A-Z0-9]+(?:-[A-Za-z]+)?")


def sse_turn(turn, n):
    """The SSE events of one scripted model turn."""
    ev = [{"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
           "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 10, "output_tokens": 1}}}]
    i = 0
    if "text" in turn:
        ev += [{"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
               {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": turn["text"]}},
               {"type": "content_block_stop", "index": i}]
        i += 1
    for k, c in enumerate(turn.get("calls", [])):
        raw = json.dumps(c["input"])
        ev += [{"type": "content_block_start", "index": i, "content_block": {"type": "tool_use",
                "id": f"toolu_{n}_{k}", "name": c["tool"], "input": {}}},
               {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": raw}},
               {"type": "content_block_stop", "index": i}]
        i += 1
    stop = "tool_use" if turn.get("calls") else "end_turn"
    ev += [{"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5}}, {"type": "message_stop"}]
    return ev


class Fake:
    """The fake Messages server: scripted turns for requests that carry
    tools (the agent's), a short text for the rest (titles, checks)."""

    def __init__(self, turns, cwd, judge=()):
        self.turns, self.cwd, self.requests, self.lock = turns, cwd, [], threading.Lock()
        self.hook_requests = []
        # `prompt` hooks' requests (Claude Code's "You are evaluating a
        # ... hook" system prompt) get the scenario's `judge` answers in turn.
        self.judge, self.judge_requests = list(judge), []
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                self.send_response(404)
                self.end_headers()

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                if self.path.startswith("/hook/"):
                    return self.hook(self.path[len("/hook/"):], raw)
                body = json.loads(raw or b"{}")
                if "count_tokens" in self.path:
                    return self.json({"input_tokens": 10})
                with fake.lock:
                    if "You are evaluating a" in json.dumps(body.get("system")):
                        k = len(fake.judge_requests)
                        fake.judge_requests.append(body)
                        turn = {"text": fake.judge[k] if k < len(fake.judge) else '{"ok": true}'}
                        n = 800 + k
                    elif body.get("tools"):
                        n = len(fake.requests)
                        fake.requests.append(body)
                        turn = fake.turns[n] if n < len(fake.turns) else {"text": "Nothing more."}
                    else:
                        n, turn = 900, {"text": "ok"}
                turn = json.loads(json.dumps(turn).replace("<cwd>", fake.cwd))
                if "error" in turn:
                    data = json.dumps(turn["error"]["body"]).encode()
                    self.send_response(turn["error"]["status"])
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    return self.wfile.write(data)
                if not body.get("stream"):
                    return self.json({"id": "msg_x", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                      "content": [{"type": "text", "text": turn.get("text", "ok")}],
                                      "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}})
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for e in sse_turn(turn, n):
                    self.wfile.write(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode())
                self.wfile.flush()

            def hook(self, mode, raw):
                """An http hook: hook.py answers, as the command hook would."""
                with fake.lock:
                    fake.hook_requests.append({"path": self.path, "headers": dict(self.headers)})
                p = subprocess.run(["python3", os.path.join(fake.cwd, ".claude/hook.py"), mode],
                                   input=raw, capture_output=True, cwd=fake.cwd)
                data = p.stdout
                self.send_response(200 if p.returncode == 0 else 500)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def json(self, v):
                data = json.dumps(v).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def settings(events, hooks, http=None, url="", prompts=None):
    """.claude/settings.json: every event runs hook.py, in the scenario's
    mode for the events it names and `log` for the others; the events of
    `http` run it behind an http hook (at `url`) instead, in the user's
    settings (~/.claude/settings.json) or the project's, as `http_scope`
    says. Returns the project's settings and the user's."""
    http = http or {}
    scope = http.get("scope", "user")
    project, user = {}, {}
    for ev in events:
        if ev in http.get("events", {}):
            hook = {"type": "http", "url": f"{url}/hook/{http['events'][ev]}", "timeout": 30}
            (user if scope == "user" else project)[ev] = [{"matcher": "", "hooks": [hook]}]
            continue
        cmd = f'python3 "$CLAUDE_PROJECT_DIR/.claude/hook.py" {hooks.get(ev, "log")}'
        project[ev] = [{"matcher": "", "hooks": [{"type": "command", "command": cmd}]}]
        if ev in (prompts or {}):
            project[ev][0]["hooks"].append({"type": "prompt", "prompt": prompts[ev], "timeout": 30})
    return {"hooks": project}, {"hooks": user}


NUMERIC = {"duration_ms"}
IDS = {"session_id", "transcript_path", "cwd", "tool_use_id", "prompt_id", "agent_id",
       "agent_transcript_path"}


def normalise(v, cwd, home, key=None):
    if isinstance(v, dict):
        return {k: normalise(x, cwd, home, k) for k, x in v.items()}
    if isinstance(v, list):
        return [normalise(x, cwd, home) for x in v]
    if key in NUMERIC and isinstance(v, (int, float)):
        return "<number>"
    if key in IDS and isinstance(v, str) and v:
        return f"<{key}>"
    if isinstance(v, str):
        return v.replace(cwd, "<cwd>").replace(home, "<home>")
    return v


def judge_request(body, cwd, home):
    """What a `prompt` hook asked: its system prompt's last part, its
    output_config, and its last message's text (the hook's prompt, with
    $ARGUMENTS as normalised JSON)."""
    last = body["messages"][-1]["content"]
    text = last if isinstance(last, str) else "".join(b.get("text", "") for b in last)
    at = text.find("{")
    args = None
    if at >= 0:
        try:
            args = normalise(json.loads(text[at:]), cwd, home)
            text = text[:at] + "$ARGUMENTS"
        except ValueError:
            pass
    return {"system": body["system"][-1]["text"], "output_config": body.get("output_config"),
            "prompt": text[-300:], "arguments": args, "messages": len(body["messages"])}


def markers(body):
    return sorted(set(MARK.findall(json.dumps([body.get("system"), body.get("messages")]))))


def golden(scn, fake, log, cwd, home, code):
    events = [{"event": e["input"].get("hook_event_name"), "mode": e["mode"],
               "input": normalise(e["input"], cwd, home), "transcript_types": e["transcript_types"]}
              for e in log]
    model, seen = [], set()
    for body in fake.requests:
        m = markers(body)
        last = (body.get("messages") or [{}])[-1]
        results = [{"is_error": bool(b.get("is_error"))} for b in last.get("content", [])
                   if isinstance(b, dict) and b.get("type") == "tool_result"]
        model.append({"new_markers": [x for x in m if x not in seen], "tool_results": results})
        seen.update(m)
    files = {}
    for f in ("ran.txt", "updated.txt", "notes.txt", "new.txt"):
        p = os.path.join(cwd, f)
        files[f] = open(p).read() if os.path.exists(p) else None
    return {"name": scn["name"], "mode": scn.get("mode", "bypassPermissions"), "exit_code": code,
            "events": events, "model": model, "files": files}


def run(scn, events, claude):
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="claude-ref-"))
    home, cwd = os.path.join(tmp, "home"), os.path.join(tmp, "project")
    os.makedirs(os.path.join(cwd, ".claude"))
    os.makedirs(home)
    shutil.copy(os.path.join(FIX, "hook.py"), os.path.join(cwd, ".claude/hook.py"))
    for name, text in scn.get("files", {}).items():
        with open(os.path.join(cwd, name), "w") as f:
            f.write(text)
    # `agents`: the scenario's sub-agents (name: description), which the
    # test gives gemini-rs as ~/.gemini/agents/<name>.md.
    for name, desc in scn.get("agents", {}).items():
        os.makedirs(os.path.join(cwd, ".claude/agents"), exist_ok=True)
        with open(os.path.join(cwd, ".claude/agents", name + ".md"), "w") as f:
            f.write(f"---\nname: {name}\ndescription: {desc}\n---\nYou help.\n")
    fake = Fake(scn["turns"], cwd, scn.get("judge", []))
    # A scenario's own `events` narrow the hooked events to those.
    events = scn.get("events", events)
    project, user = settings(events, scn.get("hooks", {}), scn.get("http"), fake.url,
                             scn.get("prompt_hooks"))
    with open(os.path.join(cwd, ".claude/settings.json"), "w") as f:
        json.dump(project, f, indent=1)
    if user["hooks"]:
        os.makedirs(os.path.join(home, ".claude"))
        with open(os.path.join(home, ".claude/settings.json"), "w") as f:
            json.dump(user, f, indent=1)
    env = {"PATH": os.environ["PATH"], "HOME": home, "ANTHROPIC_BASE_URL": fake.url,
           "ANTHROPIC_API_KEY": "dummy", "IS_SANDBOX": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "TERM": "dumb"}
    common = ["--model", "claude-sonnet-4-5", "--permission-mode", scn.get("mode", "bypassPermissions")]
    # `before`: prompts of an earlier run the scenario's prompt continues
    # (`--continue`), so that `/compact` has a conversation to compact.
    for prompt in scn.get("before", []):
        subprocess.run([claude, "-p", prompt] + common, cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=180)
    cont = ["--continue"] if scn.get("before") else []
    args = [claude, "-p", scn.get("prompt", "Please go.")] + cont + common
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    logp = os.path.join(cwd, ".claude/hooklog.jsonl")
    log = [json.loads(l) for l in open(logp)] if os.path.exists(logp) else []
    g = golden(scn, fake, log, cwd, home, p.returncode)
    g["stdout"] = p.stdout.replace(cwd, "<cwd>")
    if scn.get("http"):
        g["http_requests"] = [{"path": r["path"], "content_type": r["headers"].get("Content-Type")}
                              for r in fake.hook_requests]
    if scn.get("prompt_hooks"):
        g["judge_requests"] = [judge_request(b, cwd, home) for b in fake.judge_requests]
    fake.server.shutdown()
    if os.environ.get("KEEP"):
        print("kept", tmp, file=sys.stderr)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return g


def main():
    claude = os.environ.get("REF_CLAUDE") or "claude"
    spec = json.load(open(os.environ.get("SCN") or os.path.join(FIX, "scenarios.json")))
    only = set(sys.argv[1:])
    for scn in spec["scenarios"]:
        if only and scn["name"] not in only:
            continue
        g = run(scn, spec["events"], claude)
        with open(os.path.join(FIX, scn["name"] + ".json"), "w") as f:
            json.dump(g, f, indent=1)
            f.write("\n")
        print(scn["name"], "exit", g["exit_code"], [e["event"] for e in g["events"]], file=sys.stderr)


if __name__ == "__main__":
    main()
