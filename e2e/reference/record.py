#!/usr/bin/env python3
"""Plays scripted model sessions to a Gemini CLI (the reference, or
gemini-rs) against a fake Gemini endpoint on 127.0.0.1 and writes what the
model was shown - the tools declared in each request and every function
response - as normalised goldens.

Not part of CI (it needs the reference programs, see /work/peers.env or
`npm install --prefix /tmp/g061 @google/gemini-cli@0.61.0`):

    e2e/reference/record.sh                      # writes the today goldens
    python3 e2e/reference/record.py BINARY OUT_DIR [SCENARIO ...]

Each scenario is a list of model turns (function calls or text), extra
command-line flags, settings and files of a scratch project. A golden is
`OUT_DIR/<scenario>.json`: `{"declared": [names of the first request],
"responses": [[name, response], ...]}`, with the scratch folder written as
`<tmp>`. Turns are served in order to every model request, a tool's own
(`"side": true` tells the test, whose fake server keys them by method). A
turn with `"only": "today"` (or `"0.27"`) is played only when
recording into a folder of that name. crates/cli/tests/dialects.rs plays the same scenarios
(e2e/reference/scenarios.json) through gemini-rs and compares.
"""

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def turn(parts):
    return [{"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP",
                             "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}]


def model_turn(step):
    if "status" in step:
        # An HTTP error reply (a 500 or 429 the client retries).
        return {"status": step["status"], "body": step.get("body", {})}
    if "call" in step:
        return turn([{"functionCall": {"name": step["call"], "args": step.get("args", {})}}])
    return turn([{"text": step["text"]}])


def serve(turns, log):
    state = {"i": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            if "countTokens" in self.path:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"totalTokens": 10}')
                return
            # Side requests (routing, next-speaker checks) carry no tools.
            log.append(body)
            with lock:
                i = state["i"]
                state["i"] += 1
            if i >= len(turns):
                chunks = turn([{"text": "done"}])
            else:
                chunks = turns[i]
            if isinstance(chunks, dict):
                self.send_response(chunks["status"])
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(chunks["body"]).encode())
                return
            self.send_response(200)
            if ":generateContent" in self.path:
                # A side request that is not streamed (web_fetch's).
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(chunks[0]).encode())
                return
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def steps(scenario, dialect):
    """The scenario's model turns in `dialect` (a step with `only` is
    played in that dialect alone)."""
    return [s for s in scenario["turns"] if s.get("only", dialect) == dialect]


def run(binary, scenario, dialect, extra_env):
    root = os.path.realpath(tempfile.mkdtemp())
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(home, ".gemini"))
    os.makedirs(proj)
    for rel, content in scenario.get("files", {}).items():
        path = os.path.join(proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
    for rel, content in scenario.get("home_files", {}).items():
        path = os.path.join(home, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content.replace("<home>", home))
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "model": {"name": "gemini-2.5-flash"}}
    settings.update(json.loads(json.dumps(scenario.get("settings", {})).replace("<home>", home)))
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump(settings, f)
    log = []
    server = serve([model_turn(s) for s in steps(scenario, dialect)], log)
    env = dict(os.environ, GEMINI_CLI_HOME=home, HOME=home, GEMINI_API_KEY="dummy",
               GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_CLI_NO_RELAUNCH="true",
               GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{server.server_address[1]}", **extra_env)
    flags = [a.replace("<home>", home) for a in scenario.get("flags", [])]
    done = subprocess.run([binary, *flags, "-p", "go"], cwd=proj, env=env, capture_output=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    server.shutdown()
    extra = captured(scenario, done, home, proj)
    requests = [b for b in log if b.get("tools")]
    declared = []
    if requests:
        for group in requests[0]["tools"]:
            declared += [d["name"] for d in group.get("functionDeclarations", [])]
    responses = []
    for body in requests:
        for part in (body.get("contents") or [{}])[-1].get("parts", []):
            if "functionResponse" in part:
                fr = part["functionResponse"]
                responses.append([fr["name"], fr["response"]])
    shutil.rmtree(root, ignore_errors=True)
    golden = {"declared": sorted(declared), "responses": responses, **extra}
    if scenario.get("schemas"):
        golden["schemas"] = schemas(requests[0]["tools"] if requests else [], scenario)
    text = json.dumps(golden, indent=1)
    # A process group id differs on every run.
    text = re.sub(r"Process Group PGID: \d+", "Process Group PGID: <pgid>", text)
    # So does a background command's process id.
    text = re.sub(r"\(PID: \d+\)", "(PID: <pid>)", text)
    text = text.replace(proj, "<tmp>").replace(home, "<home>")
    # The project's temp folder: a slug (0.61) or a hash of the path (0.27.4).
    return re.sub(r"<home>/\.gemini/tmp/[A-Za-z0-9_.-]+", "<home>/.gemini/tmp/<project>", text), done


def shape(value):
    """The keys and types of `value`: objects keep their keys, arrays
    every element, and a leaf is written as its type."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "string"


def session_records(home):
    """The records of the one session file the run wrote: a JSONL chat
    (0.61) as one record a line, a JSON chat (0.27.4) as one record."""
    found = []
    for base, _, names in os.walk(os.path.join(home, ".gemini", "tmp")):
        found += [os.path.join(base, n) for n in names
                  if os.path.basename(base) == "chats" and n.startswith("session-")]
    if len(found) != 1:
        return {"error": f"{len(found)} session files"}
    with open(found[0]) as f:
        text = f.read()
    if found[0].endswith(".jsonl"):
        return {"format": "jsonl", "records": [json.loads(l) for l in text.splitlines() if l.strip()]}
    return {"format": "json", "records": [json.loads(text)]}


def stream_events(stdout):
    """Each `-o stream-json` line's type and shape, with the text of a
    message or result and the name of a tool kept."""
    events = []
    for line in stdout.decode().splitlines():
        if not line.strip().startswith("{"):
            continue
        event = json.loads(line)
        kept = {k: event[k] for k in ("type", "role", "content", "tool_name", "status", "delta")
                if k in event}
        events.append({"kept": kept, "shape": shape(event)})
    return events


def captured(scenario, done, home, proj):
    """What a scenario asks to capture beyond the model's view:
    `session` (the session file's record shapes), `json` (the shape of
    `-o json`'s answer and its response text) or `stream-json`."""
    out = {}
    for what in scenario.get("capture", []):
        if what == "session":
            found = session_records(home)
            out["session"] = {"format": found.get("format"),
                              "shapes": [shape(r) for r in found.get("records", [])],
                              "error": found.get("error")}
        elif what == "json":
            answer = json.loads(done.stdout.decode() or "null")
            out["json"] = {"response": (answer or {}).get("response"), "shape": shape(answer)}
        elif what == "stream-json":
            out["stream"] = stream_events(done.stdout)
    return out


def schemas(tools, scenario):
    """The parameter schema of each declared tool `compare_declared`
    selects."""
    pats = scenario.get("compare_declared", [])
    picked = {}
    for group in tools:
        for d in group.get("functionDeclarations", []):
            name = d["name"]
            if any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in pats):
                picked[name] = d.get("parameters", d.get("parametersJsonSchema"))
    return dict(sorted(picked.items()))


# Start-up chatter of the references on stderr that is not a subcommand's
# answer (log lines, MCP discovery errors and their stack traces).
NOISE = ("Ripgrep is not available", "Warning: 256-color", " Warning: 256-color", "Loading extension",
         "[MCP error]", "    at ", "  [cause]", "  code:", "  data:", "}", "MCP issues detected",
         "Scheduling MCP", "Executing MCP", "MCP context refresh", "Registering notification",
         "Server '", "Error during discovery", "Hook registry", "(node:", "(Use `node")


def run_command(binary, scenario):
    """Plays a subcommand scenario (`command`: its arguments, `setup`:
    commands run first): what it printed on each stream and its exit
    code."""
    root = os.path.realpath(tempfile.mkdtemp())
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(home, ".gemini"))
    os.makedirs(proj)
    for base, key in ((proj, "files"), (home, "home_files")):
        for rel, content in scenario.get(key, {}).items():
            path = os.path.join(base, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(content.replace("<home>", home))
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    settings.update(json.loads(json.dumps(scenario.get("settings", {})).replace("<home>", home)))
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump(settings, f)
    env = dict(os.environ, GEMINI_CLI_HOME=home, HOME=home, GEMINI_API_KEY="dummy",
               GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_CLI_NO_RELAUNCH="true")
    for args in scenario.get("setup", []):
        subprocess.run([binary, *[a.replace("<home>", home) for a in args]], cwd=proj, env=env,
                       input=b"y\n", capture_output=True, timeout=120)
    args = [a.replace("<home>", home) for a in scenario["command"]]
    done = subprocess.run([binary, *args], cwd=proj, env=env, capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    shutil.rmtree(root, ignore_errors=True)

    def clean(text):
        text = re.sub(r"\x1b\[[0-9;]*m", "", text.decode())
        return "".join(l for l in text.splitlines(True) if not l.startswith(NOISE))
    golden = {"exit": done.returncode, "stdout": clean(done.stdout), "stderr": clean(done.stderr)}
    for stream in ("stdout", "stderr"):
        # An extension's id hashes where it was installed from.
        golden[stream] = re.sub(r" ID: [0-9a-f]{64}", " ID: <id>", golden[stream])
    text = json.dumps(golden, indent=1)
    # A process group id differs on every run.
    text = re.sub(r"Process Group PGID: \d+", "Process Group PGID: <pgid>", text)
    return text.replace(proj, "<tmp>").replace(home, "<home>"), done


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, out_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(HERE, "scenarios.json")) as f:
        scenarios = json.load(f)
    names = sys.argv[3:] or list(scenarios)
    dialect = os.path.basename(os.path.normpath(out_dir))
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if "command" in scenarios[name]:
            golden, done = run_command(binary, scenarios[name])
        else:
            golden, done = run(binary, scenarios[name], dialect, {})
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            f.write(golden + "\n")
        print(f"{name}: exit {done.returncode}")
        if os.environ.get("RECORD_VERBOSE"):
            print(done.stdout.decode()[-2000:], done.stderr.decode()[-3000:])


if __name__ == "__main__":
    main()
