#!/usr/bin/env python3
"""A small ACP client over stdio: one `gemini-rs --acp` process hosting
several sessions at once, each in its own folder and writing its own ATIF
trajectory (`_meta.trajectory` of `session/new`). Standard library only, so
it runs inside a Ray worker, a Kubernetes pod or a plain shell.

    python3 acp_driver.py --sessions 4 --out /tmp/rollouts \\
        --prompt "Turn NOTES.md into a CHANGELOG.md" \\
        -- gemini-rs --acp --approval-mode yolo --fake-responses demo.responses

prints one JSON line per session (id, stop reason, trajectory path).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time


class AcpError(RuntimeError):
    """A JSON-RPC error answer, or the agent going away."""


class AcpServer:
    """One `gemini-rs --acp` process and the sessions it hosts."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._next_id = 0
        self._lock = threading.Lock()
        self._answers = {}
        self._ready = threading.Condition(self._lock)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if "method" in msg and "id" in msg:
                # A request from the agent (permissions, files): run with
                # an approval mode that asks nothing; refuse the rest.
                self._send({"jsonrpc": "2.0", "id": msg["id"],
                            "error": {"code": -32601, "message": "not supported by this client"}})
            elif "id" in msg:
                with self._ready:
                    self._answers[msg["id"]] = msg
                    self._ready.notify_all()
        with self._ready:
            self._answers[None] = None
            self._ready.notify_all()

    def _send(self, message):
        line = (json.dumps(message) + "\n").encode()
        with self._lock:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()

    def send(self, method, params):
        """Sends a request; returns its id (wait for it with `wait`)."""
        with self._lock:
            self._next_id += 1
            rid = self._next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def wait(self, rid, timeout=300):
        """The result of request `rid`; raises AcpError on an error answer."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while rid not in self._answers:
                if None in self._answers:
                    raise AcpError("the agent exited")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AcpError(f"no answer to request {rid} within {timeout} s")
                self._ready.wait(left)
            msg = self._answers.pop(rid)
        if "error" in msg:
            raise AcpError(f"{msg['error'].get('code')}: {msg['error'].get('message')}")
        return msg.get("result")

    def call(self, method, params, timeout=300):
        return self.wait(self.send(method, params), timeout)

    def initialize(self):
        return self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})

    def new_session(self, cwd, trajectory=None):
        """`session/new` in `cwd`; the trajectory file goes in `_meta`."""
        params = {"cwd": os.path.abspath(cwd), "mcpServers": []}
        if trajectory:
            params["_meta"] = {"trajectory": os.path.abspath(trajectory)}
        return self.call("session/new", params)["sessionId"]

    def prompt(self, session_id, text):
        """Starts a prompt turn; returns the request id to wait for."""
        return self.send("session/prompt", {
            "sessionId": session_id,
            "prompt": [{"type": "text", "text": text}],
        })

    def close(self):
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_sessions(argv, out, sessions, prompt, template=None, env=None, tag="s"):
    """Starts one agent process, `sessions` sessions in it (each in
    `out/<tag><n>/work`, copied from `template` when given), prompts them
    all at once and waits for every turn. Returns one dict per session."""
    server = AcpServer(argv, env=env)
    results = []
    try:
        server.initialize()
        started = []
        for n in range(sessions):
            folder = os.path.join(out, f"{tag}{n}")
            work = os.path.join(folder, "work")
            if template:
                shutil.copytree(template, work, dirs_exist_ok=True)
            else:
                os.makedirs(work, exist_ok=True)
            trajectory = os.path.join(folder, "trajectory.json")
            t0 = time.monotonic()
            sid = server.new_session(work, trajectory)
            started.append((sid, trajectory, time.monotonic() - t0))
        pending = [(sid, traj, took, server.prompt(sid, prompt)) for sid, traj, took in started]
        for sid, traj, took, rid in pending:
            answer = server.wait(rid)
            results.append({
                "sessionId": sid,
                "stopReason": answer.get("stopReason"),
                "trajectory": traj,
                "sessionNewMs": round(took * 1000, 2),
            })
    finally:
        server.close()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--template", help="a folder each session's workspace starts as a copy of")
    ap.add_argument("argv", nargs=argparse.REMAINDER, help="-- gemini-rs --acp ...")
    args = ap.parse_args()
    argv = [a for a in args.argv if a != "--"] or ["gemini-rs", "--acp"]
    os.makedirs(args.out, exist_ok=True)
    for r in run_sessions(argv, args.out, args.sessions, args.prompt, args.template):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
