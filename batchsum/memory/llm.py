"""The two LLM calls of the memory: fact extraction and reconciliation, as strict JSON.

Both go through :meth:`batchsum.backends.llm.LLMBackend.complete` (the summaries' client, model
chain, rate limits, retries and response cache) with a JSON schema in ``response_format``, and are
validated with pydantic. An answer that does not validate is asked for once more (the bad answer
and a correction are appended, so the retry is a different request, not a cache hit); a second bad
answer gives ``None`` and a warning naming the unit and what follows: no facts from an extraction,
the new facts added unreconciled from a reconciliation.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from batchsum import jsonio
from batchsum.backends.llm_output import sanitize_for_log
from batchsum.backends.llm_requests import as_sent
from batchsum.due_dates import WEEKDAYS
from batchsum.errors import LLMUnavailable, SummarizationError

if TYPE_CHECKING:
    from batchsum.backends.llm import LLMBackend
    from batchsum.memory.files import Fact

log = logging.getLogger(__name__)

JsonFormat = Literal["json_schema", "json_object", "off"]
JSON_FORMATS: tuple[str, ...] = ("json_schema", "json_object", "off")
MAX_FACTS_PER_UNIT = 8
EXTRACT_MAX_TOKENS = 400
RECONCILE_MAX_TOKENS = 900
# What a failed reconciliation does (engine.reconcile): the new facts go in as they are, but a fact the memory
# already holds word for word is not added twice, so "all added" would misreport a pass that added none.
UNRECONCILED = "its new facts are added unreconciled (one the memory already holds word for word is kept, not added)"

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)

FACT_SYSTEM_PROMPT = """You extract durable facts about the person who wrote a journal entry or spoke in a \
conversation (call them "the user").

Rules:
- Return 0 to {max_facts} atomic, standalone facts: each one sentence that makes sense without the text \
(name people and places; no "he", "it", "there").
- Only what the text states about the user, their life, people, plans, preferences and decisions. \
No acknowledgements, greetings, questions or speculation.
- Write in the third person about "the user", e.g. "My wife is Anne" -> "The user's wife is named Anne".
- Nothing worth remembering: an empty list.

Answer with JSON only, no prose and no code fences: {{"facts": ["...", "..."]}}"""

# A group chat's or a meeting's turns are several people's: each fact names whom it is about, as no one of
# them is the person the memory belongs to (that is the journal's writer, an assistant chat's human).
GROUP_FACT_SYSTEM_PROMPT = """You extract durable facts about the people who speak in a conversation: \
{speakers}.

Rules:
- Return 0 to {max_facts} atomic, standalone facts: each one sentence that makes sense without the text \
(name people and places; no "he", "it", "there").
- Only what the text states about these people, their work, plans, commitments, preferences and decisions. \
No acknowledgements, greetings, questions or speculation.
- Write in the third person and name the person each fact is about as the conversation names them, never \
"the user", e.g. "Ben Okafor: I'll triage the Acme refunds by Thursday" said on Tuesday 2024-03-12 -> \
"Ben Okafor will triage the Acme refunds by Thursday 2024-03-14".
- Nothing worth remembering: an empty list.

Answer with JSON only, no prose and no code fences: {{"facts": ["...", "..."]}}"""
MAX_NAMED_SPEAKERS = 20  # a town hall's cast is cut: the prompt names people, it is no attendance list

UPDATE_MEMORY_PROMPT = """You manage a memory of facts about a user. Compare the NEW FACTS with the \
EXISTING MEMORIES and return ALL memories (every existing one and every new one) with an event each:

- ADD: a new fact with information not present in the existing memories (give it id "new").
- UPDATE: an existing memory about the same topic that the new facts refine or change; keep its id and \
give the updated text (e.g. "lives in Porto" + "moved to Lisbon" -> UPDATE to "The user lives in Lisbon").
- DELETE: an existing memory that the new facts contradict and that should no longer be kept.
- NONE: an existing memory that is unrelated to the new facts, or a new fact that duplicates one.

Every existing memory must appear exactly once with its id. A new fact that an UPDATE already covers \
must not be added again. Answer with JSON only, no prose and no code fences:
{"memory": [{"id": "0", "text": "...", "event": "NONE"}, {"id": "new", "text": "...", "event": "ADD"}]}"""

RETRY_PROMPT = (
    "Your answer was not valid JSON of the requested shape ({error}). Answer again with only the JSON object."
)


class ExtractedFacts(BaseModel):
    """The extraction answer."""

    model_config = ConfigDict(extra="ignore")

    facts: list[str] = Field(default_factory=list)

    @field_validator("facts", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        if isinstance(value, list):
            out = []
            for v in value:
                if not isinstance(v, str):
                    raise ValueError("every fact must be a string")
                if v.strip():
                    out.append(" ".join(v.split()))
            return out[:MAX_FACTS_PER_UNIT]
        return value


class MemoryEvent(BaseModel):
    """One memory of the reconciliation answer."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    id: str = "new"
    text: str = ""
    event: Literal["ADD", "UPDATE", "DELETE", "NONE"]

    @field_validator("event", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


class Reconciliation(BaseModel):
    """The reconciliation answer."""

    model_config = ConfigDict(extra="ignore")

    memory: list[MemoryEvent]


def _schema(name: str, model: type[BaseModel]) -> dict[str, Any]:
    if model is ExtractedFacts:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
            "required": ["facts"],
            "additionalProperties": False,
        }
    else:
        schema = {
            "type": "object",
            "properties": {
                "memory": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "text": {"type": "string"},
                            "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NONE"]},
                        },
                        "required": ["id", "text", "event"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["memory"],
            "additionalProperties": False,
        }
    return {"name": name, "schema": schema}


def response_format(fmt: JsonFormat, name: str, model: type[BaseModel]) -> dict[str, Any] | None:
    """The ``response_format`` request parameter for ``fmt`` (OpenAI json_schema, llama.cpp json_object)."""
    spec = _schema(name, model)
    if fmt == "json_schema":
        return {"type": "json_schema", "json_schema": {**spec, "strict": True}}
    if fmt == "json_object":
        return {"type": "json_object", "schema": spec["schema"]}
    return None


def parse_json(raw: str, model: type[BaseModel]) -> Any:
    """Validate the JSON object in ``raw`` (tolerating reasoning blocks, fences and chatter) or raise ValueError."""
    text = _THINK.sub("", raw).strip()
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError("no JSON found")
    end = max(text.rfind("}"), text.rfind("]"))
    try:
        data = jsonio.loads(text[start : end + 1])  # depth-safe: a 100,000-level answer is a ValueError
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {getattr(exc, 'msg', exc)}") from None
    if model is ExtractedFacts and isinstance(data, list):
        data = {"facts": data}  # a bare list of strings is what the seed's prompt asks small models for
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def extraction_prompt(speakers: Sequence[str] = ()) -> str:
    """The extraction's system prompt: about the named ``speakers`` of a group conversation, else about
    "the user" (a journal's writer, an assistant chat's human)."""
    if not speakers:
        return FACT_SYSTEM_PROMPT.format(max_facts=MAX_FACTS_PER_UNIT)
    named = list(speakers[:MAX_NAMED_SPEAKERS])
    if len(speakers) > len(named):
        named.append(f"and {len(speakers) - len(named)} more")
    return GROUP_FACT_SYSTEM_PROMPT.format(speakers=", ".join(named), max_facts=MAX_FACTS_PER_UNIT)


def extraction_input(text: str, content_type: str, day: str | None = None) -> str:
    """The extraction's user message: the text as a summary's request sends it (transcript markup, fillers
    and tokenizer spacing cleaned), after the day it was written when that is known."""
    kind = "conversation turns" if content_type == "conversation" else "journal entry"
    body = f"The {kind}:\n\n{as_sent(text, content_type)}"
    try:
        weekday = WEEKDAYS[dt.date.fromisoformat(day or "").weekday()]
    except ValueError:
        return body
    return (
        f'Written on {weekday} {day}: a relative day in the text ("by Thursday", "tomorrow") counts from'
        f" it; give such a day its date.\n\n{body}"
    )


class MalformedAnswer(ValueError):
    """The model's answer did not validate, twice."""


class FactsLLM:
    """Extraction and reconciliation over one :class:`LLMBackend`."""

    def __init__(self, backend: LLMBackend, json_format: JsonFormat = "json_schema") -> None:
        self.backend = backend
        self.json_format = json_format
        self.malformed = 0  # answers that failed validation twice

    async def _ask(self, messages: list[dict[str, str]], model: type[BaseModel], *, name: str, max_tokens: int) -> Any:
        """The validated answer, asking once more after an invalid one; MalformedAnswer after two
        (SummarizationError when the server cannot be reached at all)."""
        fmt = response_format(self.json_format, model.__name__.lower(), model)
        extra = {"response_format": fmt} if fmt else None

        def valid(answer: str) -> bool:  # only valid answers are cached, so a bad one is asked again next run
            try:
                parse_json(answer, model)
            except ValueError:
                return False
            return True

        raw = await self.backend.complete(messages, max_tokens=max_tokens, name=name, extra=extra, accept=valid)
        try:
            return parse_json(raw, model)
        except ValueError as exc:
            error = str(exc)
        retry = [
            *messages,
            {"role": "assistant", "content": raw[:2000]},
            {"role": "user", "content": RETRY_PROMPT.format(error=error)},
        ]
        raw2 = await self.backend.complete(retry, max_tokens=max_tokens, name=name, extra=extra, accept=valid)
        try:
            return parse_json(raw2, model)
        except ValueError as exc:
            raise MalformedAnswer(f"{exc}; answer began: {sanitize_for_log(raw2, limit=120)!r}") from None

    async def extract(
        self, text: str, *, name: str, content_type: str, speakers: Sequence[str] = (), day: str | None = None
    ) -> list[str] | None:
        """0..N facts stated in ``text``; None when the model's answers were malformed twice. ``speakers``:
        the named people of a group conversation (facts about each by name, not about "the user");
        ``day``: the ISO day the text was written, which relative days in it ("by Thursday") count from."""
        messages = [
            {"role": "system", "content": extraction_prompt(speakers)},
            {"role": "user", "content": extraction_input(text, content_type, day)},
        ]
        try:
            answer = await self._ask(messages, ExtractedFacts, name=name, max_tokens=EXTRACT_MAX_TOKENS)
        except MalformedAnswer as exc:
            self.malformed += 1
            log.warning("%s: the model's answer was not valid JSON twice (%s); no facts from it", name, exc)
            return None
        return list(answer.facts)

    async def reconcile(self, existing: list[Fact], new: list[str], *, name: str) -> list[MemoryEvent] | None:
        """Events for every memory (existing ones by their position as id); None when the LLM failed."""

        payload = {
            "existing_memories": [{"id": str(i), "text": f.text} for i, f in enumerate(existing)],
            "new_facts": new,
        }
        messages = [
            {"role": "system", "content": UPDATE_MEMORY_PROMPT},
            {"role": "user", "content": json.dumps(payload, ensure_ascii=False, indent=1)},
        ]
        try:
            answer = await self._ask(messages, Reconciliation, name=name, max_tokens=RECONCILE_MAX_TOKENS)
        except LLMUnavailable:
            raise  # no server to ask: the pass stops, these facts are extracted again next time
        except SummarizationError as exc:
            log.warning("%s: reconciliation failed (%s); %s", name, exc, UNRECONCILED)
            return None
        except MalformedAnswer as exc:
            # Not counted as malformed: that count's entries are asked again, these are done (their facts added).
            log.warning(
                "%s: the model's reconciliation answer was not valid JSON twice (%s); %s", name, exc, UNRECONCILED
            )
            return None
        return list(answer.memory)
