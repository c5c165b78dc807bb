"""The Harbor adapter at Harbor's own agent interface, with Harbor's code:
its `setup()` (install and configure through `exec`/`upload_file`), its
`run()` command line and environment (the model connection Harbor resolves),
and `populate_context_post_run()` reading the native ATIF trajectory with
Harbor's models. No container engine here: the environment runs each command
with bash on this machine, with the container's absolute paths
(`/installed-agent`, `/usr/local/bin`) moved under a scratch folder.

    python tests/test_agent.py BINARY GEMINI_BASE_URL EXPECTED_TOOLS

(run by crates/cli/tests/harbor.rs against the fake Gemini server).
"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harbor.environments.base import ExecResult  # noqa: E402
from harbor.models.agent.context import AgentContext  # noqa: E402
from harbor.models.trajectories import Trajectory  # noqa: E402

from gemini_rs_harbor import GeminiRs  # noqa: E402


class LocalEnvironment:
    """The parts of Harbor's BaseEnvironment an installed agent uses."""

    def __init__(self, root: Path, workdir: Path):
        self.root = root
        self.workdir = workdir
        self.default_user = None
        self.commands: list[tuple[str, dict | None]] = []
        (root / "usr/local/bin").mkdir(parents=True)
        (root / "home").mkdir()

    def _map(self, text: str) -> str:
        for p in ("/installed-agent", "/usr/local/bin"):
            text = text.replace(p, f"{self.root}{p}")
        return text

    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        self.commands.append((command, env))
        full = {
            "PATH": f"{self.root}/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.root / "home"),
            **(env or {}),
        }
        proc = await asyncio.create_subprocess_exec(
            "bash", "-c", self._map(command),
            cwd=cwd or self.workdir, env=full,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout_sec or 120)
        return ExecResult(stdout=out.decode(), stderr=err.decode(), return_code=proc.returncode)

    async def upload_file(self, source_path, target_path):
        target = Path(self._map(str(target_path)))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target)


async def main(binary: str, base_url: str, expected_tools: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        work = tmp / "task"
        work.mkdir()
        (work / "NOTES.md").write_text("a note\n")
        logs = tmp / "logs/agent"
        logs.mkdir(parents=True)
        env = LocalEnvironment(tmp / "container", work)
        agent = GeminiRs(
            logs_dir=logs,
            model_name="gemini/gemini-2.5-flash",
            environment_logs_dir=PurePosixPath(str(logs)),
            extra_env={"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": base_url},
            binary=binary,
        )
        await agent.setup(env)
        assert agent.version() and agent.version() != "unknown", agent.version()
        assert (env.root / "usr/local/bin/gemini-rs").exists()

        context = AgentContext()
        await agent.run("Do the task.", env, context)
        command, run_env = env.commands[-1]
        for flag in ("--approval-mode yolo", "-o stream-json", "--trajectory", "-m gemini-2.5-flash"):
            assert flag in command, command
        assert run_env["GEMINI_API_KEY"] == "dummy", run_env
        assert run_env["GOOGLE_GEMINI_BASE_URL"] == base_url, run_env
        assert run_env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
        assert (work / "OUT.md").read_text() == "# Out\nsecond\n"

        agent.populate_context_post_run(context)
        assert context.n_input_tokens and context.n_input_tokens > 0, context
        assert context.metadata and context.metadata["session_id"], context
        trajectory = Trajectory.model_validate(json.loads((logs / "trajectory.json").read_text()))
        tools = [s.tool_calls[0].function_name for s in trajectory.steps if s.tool_calls]
        assert tools == expected_tools, tools
        events = [json.loads(line) for line in (logs / "gemini-rs.jsonl").read_text().splitlines()]
        assert events[-1]["type"] == "result" and events[-1]["status"] == "success", events[-1]
        print(json.dumps({"steps": len(trajectory.steps), "input_tokens": context.n_input_tokens,
                          "version": agent.version()}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3].split(",")))
    os._exit(0)
