#!/usr/bin/env python3
"""A fake Gemini API for bench/rollouts.sh: every streamGenerateContent
answers after LATENCY_MS with the next step of a five-tool task, chosen by
how many function responses the conversation already holds (so any number
of sessions can share it): list_directory, read_file, write_file, replace,
read_file, then a final text. Other generateContent calls (Gemini CLI's
side checks) get a short JSON text. GET /first-turns returns the arrival
times (time.time()) of every session's first request.

    python3 fake_gemini.py PORT LATENCY_MS
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LATENCY = 0.0
FIRST_TURNS = []
LOCK = threading.Lock()

STEPS = [
    ("list_directory", {"dir_path": "."}),
    ("read_file", {"file_path": "NOTES.md"}),
    ("write_file", {"file_path": "OUT.md", "content": "# Out\nfirst\n"}),
    ("replace", {"file_path": "OUT.md", "old_string": "first", "new_string": "second",
                 "instruction": "Change first to second."}),
    ("read_file", {"file_path": "OUT.md"}),
]


def answered(body):
    """How many function responses the request's conversation holds."""
    return sum(
        1
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if "functionResponse" in part
    )


def step_parts(n):
    if n < len(STEPS):
        name, args = STEPS[n]
        return [{"functionCall": {"name": name, "args": args}}]
    return [{"text": "Done: OUT.md says second."}]


class Server(ThreadingHTTPServer):
    # Class attributes: the constructor listens with them (set on an
    # instance they come too late, and a backlog of 5 drops the SYNs of
    # a hundred sessions connecting at once).
    daemon_threads = True
    request_queue_size = 2048


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, ctype, data):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with LOCK:
            data = json.dumps(FIRST_TURNS).encode()
        self._send("application/json", data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        n = answered(body)
        if n == 0 and "streamGenerateContent" in self.path:
            with LOCK:
                FIRST_TURNS.append(time.time())
        time.sleep(LATENCY)
        usage = {"promptTokenCount": 1000 + 100 * n, "candidatesTokenCount": 12,
                 "totalTokenCount": 1012 + 100 * n}
        if "streamGenerateContent" in self.path:
            chunk = {"candidates": [{"content": {"role": "model", "parts": step_parts(n)},
                                     "finishReason": "STOP", "index": 0}],
                     "usageMetadata": usage}
            self._send("text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode())
        elif "countTokens" in self.path:
            self._send("application/json", b'{"totalTokens": 100}')
        else:
            text = json.dumps({"next_speaker": "user", "reasoning": "done"})
            answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                      "finishReason": "STOP", "index": 0}],
                      "usageMetadata": usage}
            self._send("application/json", json.dumps(answer).encode())


def main():
    global LATENCY
    port, LATENCY = int(sys.argv[1]), float(sys.argv[2]) / 1000
    server = Server(("127.0.0.1", port), Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
