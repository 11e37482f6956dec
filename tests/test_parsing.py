"""Parsing model output: Hermes/Qwen tool_call blocks and OpenAI tool_calls; malformed text never raises."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.engine.parsing import parse_model_output


def test_hermes_several_calls_and_text() -> None:
    text = (
        "Let me check.\n"
        '<tool_call>{"name": "banking__get_account", "arguments": {"account_id": "ACC-0001"}}</tool_call>\n'
        '<tool_call>\n{"name": "banking__list_cards", "arguments": "{\\"account_id\\": \\"ACC-0001\\"}"}\n</tool_call>'
    )
    p = parse_model_output(text)
    assert p.content == "Let me check."
    assert [(c.name, c.arguments) for c in p.calls] == [
        ("banking__get_account", {"account_id": "ACC-0001"}),
        ("banking__list_cards", {"account_id": "ACC-0001"}),
    ]
    assert p.format_errors == [] and all(c.error is None for c in p.calls)
    assert len({c.id for c in p.calls}) == 2


def test_think_blocks_are_ignored() -> None:
    text = '<think>maybe <tool_call>{"name": "x", "arguments": {}}</tool_call></think>No call needed.'
    p = parse_model_output(text)
    assert p.calls == [] and p.content == "No call needed."


def test_plain_answer_has_no_calls() -> None:
    p = parse_model_output("Your balance is 12.00 USD.")
    assert p.calls == [] and p.format_errors == [] and p.content == "Your balance is 12.00 USD."


def test_malformed_calls_are_format_errors_that_still_count() -> None:
    p = parse_model_output(
        '<tool_call>{"name": "a", "arguments": {</tool_call><tool_call>[1]</tool_call>'
        '<tool_call>{"arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": [1]}</tool_call>'
    )
    assert len(p.calls) == 4 and len(p.format_errors) == 4
    assert all(c.error for c in p.calls)
    assert "not valid JSON" in p.calls[0].error  # type: ignore[operator]


def test_unterminated_tool_call() -> None:
    p = parse_model_output('ok <tool_call>{"name": "banking__get_account", "arguments": {"account_id": "A')
    assert len(p.calls) == 1 and p.calls[0].error and "unterminated" in p.calls[0].error
    assert p.content == "ok"


def test_openai_message_dict_and_json_text() -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "banking__get_account", "arguments": '{"account_id": "ACC-0002"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "banking__list_cards", "arguments": {"account_id": "ACC-0002"}},
            },
        ],
    }
    for given_ in (msg, json.dumps(msg)):
        p = parse_model_output(given_)
        assert [(c.id, c.name, c.arguments) for c in p.calls] == [
            ("c1", "banking__get_account", {"account_id": "ACC-0002"}),
            ("c2", "banking__list_cards", {"account_id": "ACC-0002"}),
        ]


def test_openai_malformed_entries() -> None:
    p = parse_model_output({"content": "hi", "tool_calls": [1, {"function": {"name": "x", "arguments": "{bad"}}]})
    assert len(p.calls) == 2 and len(p.format_errors) == 2
    p = parse_model_output({"content": "hi", "tool_calls": "nope"})
    assert p.calls == [] and p.format_errors


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('<>/{}[]":,tool_call namethink arguments\\ 01')), max_size=200))
def test_parser_never_raises(text: str) -> None:
    p = parse_model_output(text)
    assert all(c.error or isinstance(c.arguments, dict) for c in p.calls)
