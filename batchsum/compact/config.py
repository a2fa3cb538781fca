"""Settings of compaction and its trigger, with the defaults the library and CLI share."""

from __future__ import annotations

from dataclasses import dataclass

from batchsum.errors import ConfigError

MIN_SUMMARY_TOKENS = 48  # the header line plus a few words; below this a summary says nothing


@dataclass(frozen=True)
class CompactConfig:
    """When to compact and how much to keep.

    Trigger: compact when the conversation uses ``trigger_token_ratio`` of the context window, then
    not again until usage has fallen below ``reset_token_ratio`` (hysteresis) and at least
    ``cooldown_messages`` new messages arrived; at 100 % the cooldown is ignored (emergency).
    Budget: the summary gets ``min(max_summary_tokens, max(128, dropped_tokens // 2))`` tokens.
    """

    enabled: bool = True
    trigger_token_ratio: float = 0.8
    reset_token_ratio: float = 0.7
    min_messages: int = 12
    preserve_recent: int = 6
    cooldown_messages: int = 4
    max_summary_chain_depth: int = 3
    force_refresh_after_messages: int | None = None
    max_summary_tokens: int = 500
    summary_floor_tokens: int = 128  # the floor of the budget rule: keeps small summaries readable
    min_preserve_recent: int = 2  # the tail is never cut below this when it alone overflows the window
    keep_system: bool = True  # a leading system prompt stays verbatim, in front of the summary
    preserve_error_details: bool = True  # keep whole error lines of failed commands
    abort_on_failure: bool = False  # LLM mode: raise instead of falling back to the rule-based summary
    excerpt_tokens: int = 60  # head + tail kept from a tool result no extractor understands
    llm_max_transcript_tokens: int = 8000  # LLM mode: transcript sent to the model (oldest side trimmed)
    # LLM mode: secrets in the transcript become [REDACTED:<kind>] before it is sent; None: as a run decides,
    # on when the server is not loopback (the text would leave the machine).
    redact_secrets: bool | None = None
    encoding: str = "cl100k_base"

    def validate(self) -> None:
        """Raise ConfigError naming the first setting that makes no sense."""
        if not 0 < self.trigger_token_ratio <= 1.5:
            raise ConfigError(f"trigger_token_ratio must be in (0, 1.5] (got {self.trigger_token_ratio})")
        if not 0 <= self.reset_token_ratio < self.trigger_token_ratio:
            raise ConfigError(
                f"reset_token_ratio must be below trigger_token_ratio ({self.reset_token_ratio} >= "
                f"{self.trigger_token_ratio})"
            )
        for name in ("min_messages", "cooldown_messages", "preserve_recent", "min_preserve_recent"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be 0 or more (got {getattr(self, name)})")
        if self.max_summary_chain_depth < 1:
            raise ConfigError(f"max_summary_chain_depth must be at least 1 (got {self.max_summary_chain_depth})")
        if self.max_summary_tokens < MIN_SUMMARY_TOKENS:
            raise ConfigError(
                f"max_summary_tokens must be at least {MIN_SUMMARY_TOKENS}, the summary's header line and a few "
                f"words (got {self.max_summary_tokens})"
            )
        if self.force_refresh_after_messages is not None and self.force_refresh_after_messages < 1:
            raise ConfigError(
                f"force_refresh_after_messages must be at least 1 (got {self.force_refresh_after_messages})"
            )


DEFAULT_CONFIG = CompactConfig()
