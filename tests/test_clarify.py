"""The ask-turn check: the documented examples, declared synonyms, inference of what is missing."""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

import hub.engine.clarify
from hub.engine.clarify import judge_reply, missing_params, other_words, question_words, words_for
from hub.kit import Ctx, build_tool
from hub.tasks import BUILTIN_TASKS, Task, read_jsonl
from tests.conftest import LIBRARY

EXAMPLE = re.compile(r'^\s+"(?P<reply>[^"]*)"\s+(?P<score>[01])\s+\S', re.MULTILINE)
ACCOUNT = {"from_account_id": words_for("from_account_id", {"x-entity": "account"})}
BANKING = {f"banking__{n}": t.input_schema for n, t in LIBRARY.mount("banking").tools.items()}
OTHERS = other_words(BANKING, ACCOUNT)  # everything else the banking tools take


def documented_examples() -> list[tuple[str, bool]]:
    doc = hub.engine.clarify.__doc__ or ""
    return [(m["reply"], m["score"] == "1") for m in EXAMPLE.finditer(doc)]


def test_the_module_documents_examples() -> None:
    assert len(documented_examples()) >= 7


@pytest.mark.parametrize(("reply", "asked"), documented_examples())
def test_every_documented_example_scores_as_documented(reply: str, asked: bool) -> None:
    verdict = judge_reply(reply, ACCOUNT, OTHERS)
    assert verdict.asked is asked, verdict.reason


@pytest.mark.parametrize(
    "reply",
    [
        "Which account would you like to send it from?",
        "Sorry, I can't do that yet: what is the account number?",
        "Could you tell me the source accounts?",
        "I need the account you want to pay from.",
        "Let me know the account ID, please.",
    ],
)
def test_questions_and_requests_for_the_account_ask(reply: str) -> None:
    assert judge_reply(reply, ACCOUNT).asked


@pytest.mark.parametrize(
    "reply",
    [
        "Transfer complete.",
        "I'm unable to help with transfers.",
        "Do you want me to pick an account?",
        "What else?",
        "Your account is ready. Anything else?",  # the question and the account are in different sentences
    ],
)
def test_statements_refusals_offers_and_unrelated_questions_do_not(reply: str) -> None:
    assert not judge_reply(reply, ACCOUNT).asked


def test_declared_and_builtin_synonyms() -> None:
    prop = {"type": "string", "x-synonyms": ["file name", "document"]}
    phrases = words_for("path", prop)
    assert ("file", "name") in phrases and ("document",) in phrases and ("folder",) in phrases  # declared, built in
    wanted = {"path": phrases}
    assert judge_reply("Which document do you mean?", wanted).asked
    assert judge_reply("What's the file name?", wanted).asked
    assert not judge_reply("What's the name?", wanted).asked


def test_missing_is_declared_or_inferred() -> None:
    tasks = {t.id: t for t in read_jsonl(BUILTIN_TASKS)}
    assert missing_params(tasks["bank-clarify-009"], 0) == (["card_id"], False)
    undeclared = tasks["bank-clarify-008"].model_copy(deep=True)
    undeclared.turns[0].missing = []
    assert missing_params(undeclared, 0) == (["from_account_id"], True)  # $200 and ACC-0004 are stated
    schemas = {n: LIBRARY.tool(*n.split("__")).input_schema for n in undeclared.tools}
    assert ("account",) in question_words(undeclared, 0, schemas)["from_account_id"]


def test_only_an_ask_turn_may_withhold() -> None:
    with pytest.raises(ValueError, match="only an ask turn"):
        Task.model_validate(
            {
                "id": "x",
                "servers": ["banking"],
                "tools": [],
                "turns": [
                    {
                        "user": "hi",
                        "missing": ["card_id"],
                        "calls": [{"id": "g1", "server": "banking", "tool": "list_cards"}],
                    }
                ],
            }
        )


KINDS = ("account", "card", "draft", "invoice", "meeting", "path")
FILLER = st.sampled_from(
    [
        "the",
        "money",
        "today",
        "now",
        "it",
        "thanks",
        "ok",
        "sure",
        "please",
        "sent",
        "all",
        "set",
        "done",
        "great",
        "I",
        "have",
        "your",
        "request",
    ]
)


@given(words=st.lists(FILLER, min_size=1, max_size=12))
def test_a_plain_statement_never_asks(words: list[str]) -> None:
    text = " ".join(words) + "."
    verdict = judge_reply(text, ACCOUNT)
    assert not verdict.asked and verdict == judge_reply(text, ACCOUNT)  # and the same answer every time


@given(
    kind=st.sampled_from(KINDS),
    before=st.lists(FILLER, max_size=5),
    after=st.lists(FILLER, max_size=5),
    opener=st.sampled_from(["Which", "What", "Could you tell me the", "Please provide the"]),
)
def test_a_question_names_what_is_missing_or_it_does_not_count(
    kind: str, before: list[str], after: list[str], opener: str
) -> None:
    wanted = {f"{kind}_id": words_for(f"{kind}_id", {"x-entity": kind})}
    text = " ".join([*before, "."]) + f" {opener} {kind} {' '.join(after)}?"
    assert judge_reply(text, wanted).asked
    other = next(k for k in KINDS if k != kind and k not in text)
    assert not judge_reply(text, {f"{other}_id": words_for(f"{other}_id", {"x-entity": other})}).asked


def share_note(
    ctx: Ctx,
    note_path: Annotated[str, Field(description="The note's path", json_schema_extra={"x-synonyms": ["memo"]})],
) -> dict:
    """Share a note, e.g. share_note('notes/a.md')."""
    return {}


def test_a_tool_declares_synonyms_in_its_parameter_schema() -> None:
    tool = build_tool("notes", share_note, "write")
    assert tool.input_schema["properties"]["note_path"]["x-synonyms"] == ["memo"]
    task = Task.model_validate(
        {
            "id": "n",
            "kind": "clarify",
            "servers": ["notes"],
            "tools": ["notes__share_note"],
            "turns": [{"user": "share it", "ask": True, "missing": ["note_path"]}],
        }
    )
    wanted = question_words(task, 0, {"notes__share_note": tool.input_schema})
    assert judge_reply("Which memo do you mean?", wanted).asked  # the declared synonym
    assert judge_reply("Which note?", wanted).asked  # the parameter's own word
    assert not judge_reply("Which one do you mean?", wanted).asked


# Questions the way people ask them --------------------------------------------------------------


WRITE_TOOLS = {
    "content": "filesystem__write_file",
    "duration_minutes": "video_meeting__schedule_meeting",
    "title": "calendar__create_event",
    "subject": "email__create_draft",
    "start": "calendar__create_event",
    "amount": "banking__deposit_funds",
    "quantity": "trading__place_order",
    "door": "vehicle__set_door",
    "address": "email__add_contact",
    "date": "budget__add_expense",
}


def ask_task(param: str, about: str = "") -> tuple[Task, dict[str, dict]]:
    tool = WRITE_TOOLS[param]
    server = tool.split("__")[0]
    offered = [f"{server}__{n}" for n in LIBRARY.mount(server).tools]
    task = Task.model_validate(
        {
            "id": f"ask-{param}",
            "kind": "clarify",
            "servers": [server],
            "tools": offered,
            "turns": [{"user": "do it", "ask": True, "missing": [param], "about": {param: about} if about else {}}],
        }
    )
    return task, {n: LIBRARY.tool(*n.split("__")).input_schema for n in offered}


def verdict(param: str, reply: str, about: str = "") -> bool:
    task, schemas = ask_task(param, about)
    wanted = question_words(task, 0, schemas)
    return judge_reply(reply, wanted, other_words(schemas, wanted)).asked


@pytest.mark.parametrize(
    ("param", "reply"),
    [
        ("content", "What would you like the file to say?"),
        ("duration_minutes", "How long do you need?"),
        ("title", "What should I call the meeting?"),
        ("subject", "What was the email about?"),
        ("start", "What day and time should the call be?"),
        ("start", "When should it start?"),
        ("amount", "How much would you like to deposit?"),
        ("quantity", "How many shares?"),
        ("door", "Which one should I open?"),
        ("door", "Sure, the front left or the front right?"),
        ("address", "Where should it go?"),
        ("date", "What day was that?"),
        ("duration_minutes", "How long?"),
        ("amount", "What is it?"),
        ("content", "Could you tell me what it is?"),
    ],
)
def test_questions_by_what_the_value_is(param: str, reply: str) -> None:
    assert verdict(param, reply), reply


def test_questions_in_the_intents_own_words() -> None:
    assert verdict("content", "Which lines do you want in there?", about="the lines to put in the notes file")
    assert not verdict("content", "Which lines do you want in there?")
    # an intent whose words are a question ("the how often", "the what it is") lends its whole wh-phrase, not "how"
    assert verdict("amount", "How often?", about="the how often")
    assert not verdict("amount", "How are you today?", about="the how often")
    assert verdict("title", "Could you tell me what it is?", about="the what it is")
    assert not verdict("title", "What else do you need?", about="the what it is")


@pytest.mark.parametrize(
    ("param", "reply"),
    [
        ("title", "How much would you like to pay?"),  # the wrong kind of value
        ("amount", "When should I do it?"),
        ("content", "Anything else you'd like to say?"),  # a closer, not a question for the text
        ("door", "Anything else I can do for you?"),
    ],
)
def test_questions_for_something_else_do_not_count(param: str, reply: str) -> None:
    assert not verdict(param, reply), reply


def test_a_question_stuffed_with_parameter_words_does_not_pass() -> None:
    for param, tool in WRITE_TOOLS.items():
        server = tool.split("__")[0]
        words = sorted({w for t in LIBRARY.mount(server).tools.values() for w in t.input_schema.get("properties", {})})
        stuffed = "Could you tell me the " + ", the ".join(w.replace("_", " ") for w in words[:25]) + "?"
        assert not verdict(param, stuffed), (param, stuffed)
    # two other words beside the one asked for are a natural question, not stuffing
    assert verdict("amount", "How much should I deposit into the account, and should I add a description?")
