"""gemini-rs as a Harbor installed agent.

Install: the static binary is uploaded from the host (``binary=PATH`` or
``GEMINI_RS_BINARY``) into ``/installed-agent/gemini-rs``, or installed with
``pip`` (the ``gemini-rs`` wheel carries the binary; ``wheel=PATH_OR_SPEC`` or
``GEMINI_RS_WHEEL``, default the package ``gemini-rs``), then linked onto
``PATH``. No Node, no Rust in the task container.

Run: one headless run in the task's folder, ``--approval-mode yolo`` (the
container is the sandbox), ``-o stream-json`` teed to
``/logs/agent/gemini-rs.jsonl``, and the ATIF trajectory written natively to
``/logs/agent/trajectory.json`` (``--trajectory``), which Harbor collects with
the agent logs. ``populate_context_post_run`` validates it with Harbor's own
models and fills the token counts and, when the model server sent them
(``logprobs=True``: settings ``model.logprobs``), the rollout details (token
ids and logprobs per turn) trainers read.
"""

import json
import shlex
from pathlib import Path, PurePosixPath
from typing import Any, override

from harbor.agents.agent_auth_resolution import ModelConnectionSpec, ProviderAccess
from harbor.agents.capabilities import AgentCapabilities
from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.model_api_format import ModelApiFormat
from harbor.models.trajectories import Trajectory

INSTALL_DIR = PurePosixPath("/installed-agent")
BIN_DIR = PurePosixPath("/usr/local/bin")


class GeminiRs(BaseInstalledAgent):
    """gemini-rs, a Rust re-implementation of the Gemini CLI agent."""

    capabilities = AgentCapabilities(base_url=True, atif=True, resume=True)
    MODEL_CONNECTION = ModelConnectionSpec(
        supported_api_formats=[ModelApiFormat.GOOGLE_GENERATE_CONTENT],
        default_api_format_by_provider={"default": ModelApiFormat.GOOGLE_GENERATE_CONTENT},
        default_provider="gemini",
        agent_provider_access=ProviderAccess(
            api_key_candidate_names=["GEMINI_API_KEY"],
            base_url_candidate_names=["GOOGLE_GEMINI_BASE_URL"],
        ),
        api_key_destination_names={"default": "GEMINI_API_KEY"},
        base_url_destination_names={"default": "GOOGLE_GEMINI_BASE_URL"},
    )

    def __init__(
        self,
        *args: Any,
        binary: str | None = None,
        wheel: str | None = None,
        logprobs: bool = False,
        max_turns: int | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self._binary = binary or self._get_env("GEMINI_RS_BINARY")
        self._wheel = wheel or self._get_env("GEMINI_RS_WHEEL")
        self._logprobs = logprobs
        self._max_turns = max_turns

    @staticmethod
    @override
    def name() -> str:
        return "gemini-rs"

    @override
    def get_version_command(self) -> str | None:
        return "gemini-rs --version"

    @override
    async def install(self, environment: BaseEnvironment) -> None:
        target = INSTALL_DIR / "gemini-rs"
        if self._binary:
            if not Path(self._binary).is_file():
                raise FileNotFoundError(f"gemini-rs binary not found: {self._binary}")
            await environment.upload_file(self._binary, target.as_posix())
            await self.exec_as_root(environment, command=f"chmod 0755 {target}")
        else:
            spec = shlex.quote(self._wheel or "gemini-rs")
            await self.exec_as_root(
                environment,
                command=(
                    f"python3 -m venv {INSTALL_DIR}/venv && "
                    f"{INSTALL_DIR}/venv/bin/pip install --quiet {spec} && "
                    f"ln -sf {INSTALL_DIR}/venv/bin/gemini-rs {target}"
                ),
            )
        await self.exec_as_root(
            environment, command=f"mkdir -p {BIN_DIR} && ln -sf {target} {BIN_DIR}/gemini-rs"
        )
        await self.exec_as_agent(environment, command="gemini-rs --version")

    @override
    async def configure(self, environment: BaseEnvironment) -> None:
        settings: dict[str, Any] = {"model": {}}
        if self._logprobs:
            settings["model"]["logprobs"] = True
        text = json.dumps(settings)
        await self.exec_as_agent(
            environment,
            command=(
                'mkdir -p "$HOME/.gemini" && '
                f'[ -e "$HOME/.gemini/settings.json" ] || printf %s {shlex.quote(text)} '
                '> "$HOME/.gemini/settings.json"'
            ),
        )

    def _model(self) -> str | None:
        if not self.model_name:
            return None
        provider, model = self._parse_model_name(self.model_name)
        if provider in (None, "google", "gemini") or self.skip_model_parsing:
            return model
        # Providers gemini-rs reaches itself: `-m openai/...`, `ollama/...`.
        return f"{provider}/{model}"

    def run_command(self, instruction: str) -> str:
        """The shell command of one run (Harbor executes it in the task folder)."""
        logs = self.environment_logs_dir.as_posix()
        flags = ["--approval-mode", "yolo", "-o", "stream-json"]
        flags += ["--trajectory", f"{logs}/trajectory.json"]
        model = self._model()
        if model:
            flags += ["-m", model]
        if self._max_turns is not None:
            flags += ["--max-turns", str(self._max_turns)]
        if self._resume:
            flags += ["--resume", "latest"]
        flags += ["-p", instruction]
        argv = " ".join(shlex.quote(f) for f in flags)
        return (
            f"mkdir -p {shlex.quote(logs)}; "
            f"gemini-rs {argv} </dev/null 2>{shlex.quote(logs)}/gemini-rs.stderr "
            f"| tee {shlex.quote(logs)}/gemini-rs.jsonl"
        )

    def run_env(self) -> dict[str, str]:
        """The run's environment: trust the task folder, CI mode, the model
        connection Harbor resolved (key and base URL)."""
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true", "CI": "true"}
        env.update(self.model_connection.env)
        return env

    @override
    @with_prompt_template
    async def run(
        self,
        instruction: str,
        environment: BaseEnvironment,
        context: AgentContext,
    ) -> None:
        await self.exec_as_agent(
            environment, command=self.run_command(instruction), env=self.run_env()
        )

    @override
    def convert_trajectory(self, logs_dir: Path) -> Trajectory | None:
        path = logs_dir / "trajectory.json"
        if not path.is_file() or path.stat().st_size == 0:
            return None
        with open(path) as f:
            return Trajectory.model_validate(json.load(f))

    @override
    def populate_context_post_run(self, context: AgentContext) -> None:
        trajectory = self.convert_trajectory(self.logs_dir)
        if trajectory is None:
            return
        totals = trajectory.final_metrics
        if totals is not None:
            context.n_input_tokens = totals.total_prompt_tokens
            context.n_output_tokens = totals.total_completion_tokens
            context.n_cache_tokens = totals.total_cached_tokens
        turns = [s.metrics for s in trajectory.steps if s.source == "agent" and s.metrics]
        with_ids = [m for m in turns if m.completion_token_ids]
        if with_ids:
            context.rollout_details = [
                {
                    "prompt_token_ids": [m.prompt_token_ids or [] for m in with_ids],
                    "completion_token_ids": [m.completion_token_ids for m in with_ids],
                    "logprobs": [m.logprobs or [] for m in with_ids],
                }
            ]
        context.metadata = {**(context.metadata or {}), "session_id": trajectory.session_id}
