"""gemini-rs as a Harbor installed agent (``--agent-import-path
gemini_rs_harbor:GeminiRs``)."""

from .agent import GeminiRs

__all__ = ["GeminiRs"]
