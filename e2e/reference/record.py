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
    text = json.dumps({"declared": sorted(declared), "responses": responses}, indent=1)
    # A process group id differs on every run.
    text = re.sub(r"Process Group PGID: \d+", "Process Group PGID: <pgid>", text)
    return text.replace(proj, "<tmp>").replace(home, "<home>"), done


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
