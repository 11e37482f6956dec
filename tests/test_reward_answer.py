"""The answer term's check: a reply states the values the user asked for, in any usual form."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hub.engine.answer
from hub.engine.answer import answer_share, stated
from hub.tasks.oracle import answer_text

EXAMPLE = re.compile(r'^\s{4}(?P<value>\S.*?)\s{2,}"(?P<reply>[^"]*)"\s+(?P<said>yes|no)$', re.MULTILINE)


def documented() -> list[tuple[str, str, bool]]:
    return [(m["value"], m["reply"], m["said"] == "yes") for m in EXAMPLE.finditer(hub.engine.answer.__doc__ or "")]


def test_the_module_documents_examples() -> None:
    assert len(documented()) >= 6


@pytest.mark.parametrize(("value", "reply", "said"), documented())
def test_every_documented_example_holds(value: str, reply: str, said: bool) -> None:
    assert stated(eval(value), reply) is said  # noqa: S307 - literals written in the docstring


@pytest.mark.parametrize(
    ("value", "reply"),
    [
        (1500, "That comes to 1,500."),
        (1500, "$1500.00 in total"),
        (0.5, "It's 0.50."),
        (3, "You have three."),
        (-12.25, "The balance is -12.25"),
        ("Alice Wong", "ALICE WONG is the owner."),
        ("2026-06-02", "Due 06/02."),
        ("2026-06-02", "on 2 June"),
        ("2026-06-02T09:30", "June 2nd, 9:30 am"),
        ("2026-06-02T12:00", "Jun 2 at noon"),
        (["Alice", "Bob"], "Alice and bob are invited."),
        (True, "Yes, it is."),
    ],
)
def test_usual_forms_state_the_value(value: object, reply: str) -> None:
    assert stated(value, reply)


@pytest.mark.parametrize(
    ("value", "reply"),
    [
        (12, "Account ACC-0012 is yours."),  # digits inside an id are not the number
        (78.69, "About 78.7."),  # fewer decimals than the value has
        (1500, "15,000"),
        ("Alice Wong", "Alice is the owner."),
        ("2026-06-02", "June 3"),
        ("2026-06-02T16:00", "June 2 at 5 pm"),
        (["Alice", "Bob"], "Alice is invited."),
        ("in", "The sum is final."),  # a whole word, not a piece of one
    ],
)
def test_other_values_are_not_stated(value: object, reply: str) -> None:
    assert not stated(value, reply)


@given(st.floats(-1e7, 1e7).map(lambda x: round(x, 2)))
def test_the_oracle_reply_states_every_value(x: float) -> None:
    values = [x, "Harper Jones", "2026-06-02"]
    assert answer_share(values, answer_text(values)) == 1.0
    assert answer_share(values, f"{x:,.2f}") == pytest.approx(1 / 3)


@pytest.mark.parametrize("value, said", [(True, "Done. Yes"), (False, "Done. No")])
def test_the_oracle_answers_a_yes_no_question_in_words(value: bool, said: str) -> None:
    assert answer_text([value]) == said and answer_share([value], said) == 1.0
