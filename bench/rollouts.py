#!/usr/bin/env python3
"""The measurements of bench/rollouts.sh (see there). One line per run:

    python3 rollouts.py acp|procs|ref N BIN BASE_URL TEMPLATE WORKDIR

acp: N sessions in one `gemini-rs --acp` process (examples/ray/acp_driver.py);
procs: N headless gemini-rs processes at once; ref: N Gemini CLI processes.
Prints a JSON object: wall, CPU and peak memory (per session and in all),
session start time.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "examples", "ray"))
from acp_driver import AcpServer  # noqa: E402

PROMPT = "Do the five-step task."


def first_turns(base_url):
    with urllib.request.urlopen(base_url + "/first-turns") as r:
        return json.load(r)


def proc_stats(pid):
    """CPU seconds (user + system) and peak RSS (bytes) of a live process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    peak = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    return cpu, peak


def folders(workdir, template, n, tag):
    out = []
    for i in range(n):
        work = os.path.join(workdir, f"{tag}{i}")
        shutil.copytree(template, work)
        out.append(work)
    return out


def run_acp(n, binary, env, template, workdir):
    works = folders(workdir, template, n, "acp")
    t0 = time.monotonic()
    server = AcpServer([binary, "--acp", "--approval-mode", "yolo"], env=env)
    try:
        server.initialize()
        starts, ids = [], []
        for w in works:
            s = time.monotonic()
            ids.append(server.new_session(w))
            starts.append(time.monotonic() - s)
        pending = [server.prompt(sid, PROMPT) for sid in ids]
        reasons = [server.wait(rid, timeout=1800).get("stopReason") for rid in pending]
        wall = time.monotonic() - t0
        cpu, peak = proc_stats(server.proc.pid)
    finally:
        server.close()
    ok = sum(1 for w, r in zip(works, reasons) if r == "end_turn" and _done(w))
    return wall, cpu, peak, ok, starts


def run_procs(n, argv_of, env, template, workdir, base_url, tag):
    works = folders(workdir, template, n, tag)
    before = len(first_turns(base_url))
    t0 = time.monotonic()
    spawned, procs = [], []
    for w in works:
        spawned.append(time.time())
        procs.append(subprocess.Popen(argv_of(w), cwd=w, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    cpu, peak = 0.0, 0
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
        peak += usage.ru_maxrss * 1024
    wall = time.monotonic() - t0
    ok = sum(1 for w in works if _done(w))
    arrivals = sorted(first_turns(base_url)[before:])
    starts = [a - s for a, s in zip(arrivals, sorted(spawned))]
    return wall, cpu, peak, ok, starts


def _done(work):
    try:
        with open(os.path.join(work, "OUT.md")) as f:
            return f.read() == "# Out\nsecond\n"
    except OSError:
        return False


def _p95(values):
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


def main():
    mode, n, binary, base_url, template, workdir = sys.argv[1:7]
    n = int(n)
    env = dict(os.environ, GOOGLE_GEMINI_BASE_URL=base_url, GEMINI_API_KEY="dummy",
               GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_CLI_NO_RELAUNCH="true", CI="true")
    os.makedirs(workdir, exist_ok=True)
    if mode == "acp":
        wall, cpu, peak, ok, starts = run_acp(n, binary, env, template, workdir)
    else:
        def argv_of(_work):
            if mode == "ref":
                return [binary, "--yolo", "-p", PROMPT]
            return [binary, "--approval-mode", "yolo", "-p", PROMPT]
        wall, cpu, peak, ok, starts = run_procs(n, argv_of, env, template, workdir, base_url, mode)
    print(json.dumps({
        "mode": mode, "n": n, "done": ok, "wall_s": round(wall, 3),
        "cpu_ms_per_session": round(cpu * 1000 / n, 1),
        "peak_mb_total": round(peak / 2**20, 1),
        "peak_mb_per_session": round(peak / 2**20 / n, 2),
        "start_ms_median": round(statistics.median(starts) * 1000, 2) if starts else None,
        "start_ms_p95": round(_p95(starts) * 1000, 2) if starts else None,
        "start_ms_max": round(max(starts) * 1000, 2) if starts else None,
    }))


if __name__ == "__main__":
    main()
