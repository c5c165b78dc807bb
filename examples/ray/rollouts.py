#!/usr/bin/env python3
"""Rollouts on Ray: each actor hosts one `gemini-rs --acp` server running
several sessions at once (see acp_driver.py); the driver fans tasks out
over the actors and gathers every session's ATIF trajectory.

    python3 rollouts.py --actors 2 --sessions 3 --out /tmp/rollouts \\
        --prompt "Turn NOTES.md into a CHANGELOG.md" --template ../demo \\
        -- gemini-rs --acp --approval-mode yolo --fake-responses ../demo.responses

On a cluster, start Ray there and give `--address auto`; the binary and
the template must be on every node (a container image, or Ray's
`runtime_env`). Prints a JSON summary; the trajectories are under --out.
"""

import argparse
import json
import os
import sys

import ray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from acp_driver import run_sessions  # noqa: E402


@ray.remote(num_cpus=0)
class GeminiRsServer:
    """One gemini-rs ACP server; each `rollout` call is a batch of sessions
    in it, run concurrently."""

    def __init__(self, argv, env=None):
        self.argv = argv
        self.env = env

    def rollout(self, out, sessions, prompt, template, tag):
        results = run_sessions(self.argv, out, sessions, prompt, template, self.env, tag)
        for r in results:
            with open(r["trajectory"]) as f:
                r["atif"] = json.load(f)
        return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--sessions", type=int, default=3, help="sessions per actor")
    ap.add_argument("--out", required=True)
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--template")
    ap.add_argument("--address", help="a Ray cluster (default: a local one, 1 CPU, no dashboard)")
    ap.add_argument("argv", nargs=argparse.REMAINDER, help="-- gemini-rs --acp ...")
    args = ap.parse_args()
    argv = [a for a in args.argv if a != "--"] or ["gemini-rs", "--acp"]
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        env = dict(os.environ)
        actors = [GeminiRsServer.remote(argv, env) for _ in range(args.actors)]
        futures = [
            a.rollout.remote(os.path.abspath(args.out), args.sessions, args.prompt,
                             args.template and os.path.abspath(args.template), f"a{i}-s")
            for i, a in enumerate(actors)
        ]
        batches = ray.get(futures)
    finally:
        ray.shutdown()
    results = [r for batch in batches for r in batch]
    summary = {
        "sessions": len(results),
        "stopReasons": sorted({r["stopReason"] for r in results}),
        "steps": sum(len(r["atif"]["steps"]) for r in results),
        "trajectories": [r["trajectory"] for r in results],
    }
    with open(os.path.join(args.out, "trajectories.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r["atif"]) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
