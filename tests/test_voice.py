"""The persona's voice (``hub.kit.voice``), clarify answers (``hub.kit.answers``) and the phrasing figures
(``hub.synth.phrasing``), on hand-made turns."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace
from typing import Any, cast, get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.kit.answers import ANY, BY_KIND, TERSE, kind, reply
from hub.kit.intent import CallRecord, Given, Persona, Scene, TurnDraft, answer, speak
from hub.kit.voice import CLASHES, Style, draw_habits, habitual, split_intro, styled
from hub.synth import phrasing
from hub.synth.goals import asks_again
from hub.tasks import GTStep, Task, Turn

STYLES: tuple[Style, ...] = get_args(Style)
TODAY = "Monday, June 1"


def said(phrasing_: str, style: Style, seed: int, opening: bool = True, **slots: object) -> str:
    return speak(
        TurnDraft(phrasing_, dict(slots), "complete"),
        Persona("Ana Ruiz", "chatty", style),
        random.Random(seed),
        opening,
        None,
        TODAY,
    )


# Where the introduction is ------------------------------------------------------------------------


def test_split_intro_finds_the_openers_intents_write() -> None:
    cases = [
        ("I'm {me}. Can you show me {what}?", {"me": "Ana Ruiz"}, "Ana Ruiz", "Can you show me {what}?"),
        ("{me} here: what's new on {what}?", {"me": "Ana Ruiz"}, "Ana Ruiz", "what's new on {what}?"),
        ("I'm {me} and I have a check", {"me": "Ana Ruiz"}, "Ana Ruiz", "I have a check"),
        ("{me}: my balances?", {"me": "Ana Ruiz"}, "Ana Ruiz", "my balances?"),
        (
            "{me}{What} is due",
            {"me": "I'm Ana Ruiz from Lisbon. ", "What": "x"},
            "Ana Ruiz from Lisbon",
            "{What} is due",
        ),
        ("{hi} how packed is my day?", {"hi": "This is Ana Ruiz:"}, "Ana Ruiz", "how packed is my day?"),
        ("{who} - could you drop it", {"who": "I'm Ana Ruiz (ana@x.org)"}, "Ana Ruiz (ana@x.org)", "could you drop it"),
        ("{who}. On second thought", {"who": "Still me"}, "Still me", "On second thought"),
    ]
    for text, slots, who, rest in cases:
        assert split_intro(text, slots) == (who, rest), text
    for text, slots in [
        ("{me} wants to pay up.", {"me": "Ana Ruiz"}),  # not an introduction
        ("{hi} how packed is my day?", {"hi": "Also,"}),  # a follow-up's connector
        ("{me}{What} is due", {"me": "", "What": "x"}),  # said in an earlier turn
        ("This is {where}: the list", {"where": "Dispatch"}),  # not a slot that holds the speaker
        ("Bill {who} now.", {"who": "Ana Ruiz"}),
    ]:
        assert split_intro(text, slots) == (None, text), text


@settings(max_examples=150, deadline=None)
@given(
    style=st.sampled_from(STYLES),
    seed=st.integers(0, 10_000),
    value=st.sampled_from(["$1,250.50", "'the please you want'", '"I\'m with you, the best"', "Tomorrow at 9 am"]),
    opening=st.booleans(),
)
def test_every_style_keeps_values_and_the_name_verbatim(style: Style, seed: int, value: str, opening: bool) -> None:
    text = said(
        "I'm {me}. Please put {v} on the account you know[ for {w}].",
        style,
        seed,
        opening,
        me="Ana Ruiz",
        v=value,
        w="x",
    )
    assert value in text and "Ana Ruiz" in text and " for x" in text
    assert "{" not in text and "[" not in text
    withheld = speak(
        TurnDraft("Put it on the account[ for {w}].", {"w": "Zed"}, "complete"),
        Persona("Ana Ruiz", "terse", style),
        random.Random(seed),
        opening,
        "w",
    )
    assert "Zed" not in withheld


def test_pleasantries_come_at_a_low_rate_and_the_name_only_where_needed() -> None:
    texts = [
        said("Can you show me the balance on {what}?", s, k, True, what="my checking account")
        for s in STYLES
        for k in range(400)
    ]
    share = sum(bool(phrasing.boilerplate(t)) for t in texts) / len(texts)
    assert 0.02 < share < 0.13, share
    assert not any("Ana" in t for t in texts)  # no introduction where the intent asks for none
    intros = [
        said("I'm {me}. What's the balance on {what}?", s, k, True, me="Ana Ruiz", what="my savings")
        for s in STYLES
        for k in range(400)
    ]
    assert all("Ana Ruiz" in t for t in intros)
    stock = sum("intro" in phrasing.boilerplate(t) for t in intros) / len(intros)
    assert 0.05 < stock < 0.3, stock  # mostly folded into the request
    assert len({t.replace("my savings", "") for t in intros}) > 60


def test_styles_differ_in_more_than_tone() -> None:
    def sample(style: Style) -> list[str]:
        return [
            said(
                "Can you show me the latest deposits on {what}? I want the ones since {when}.",
                style,
                k,
                what="my account",
                when="May 1",
            )
            for k in range(200)
        ]

    terse, chatty, sloppy, indirect = (sample(s) for s in STYLES if s != "plain")
    assert all(t[0].islower() and not t.endswith(".") for t in terse)
    assert sum(any(w in t.split() for w in ("u", "teh", "wnat", "i", "wiht")) for t in sloppy) > 80
    assert sum(not t.startswith("Can you") for t in indirect) > 150  # hedged
    assert sum(t.startswith(("Hi", "Hey", "Morning", "Hello")) for t in chatty) > 30
    assert not any(t.startswith(("Hi", "Hey", "Morning", "Hello")) for t in terse)


def test_dates_are_stated_only_beside_a_relative_day() -> None:
    plain = [said("Move {what} to {when}.", s, k, what="the review", when="June 3") for s in STYLES for k in range(200)]
    assert not any(TODAY in t for t in plain)
    relative = [said("Move {what} to tomorrow.", s, k, what="the review") for s in STYLES for k in range(200)]
    assert 0 < sum(TODAY in t for t in relative) < 0.3 * len(relative)


# Clarify answers -----------------------------------------------------------------------------------


def test_follow_ups_are_chained_to_the_last_answer_in_the_persons_voice() -> None:
    asks = {
        s: [said("What's the balance on {what}?", s, k, False, what="my savings") for k in range(300)] for s in STYLES
    }
    orders = [said("Show me the balance on {what}.", "plain", k, False, what="my savings") for k in range(300)]
    for style, texts in asks.items():
        bare = sum(t.lower().startswith("what") for t in texts) / len(texts)
        assert 0.25 < bare < 0.8, (style, bare)  # chained now and then, not always
        assert all("my savings" in t for t in texts)
    assert not any(t.startswith(("Next, what", "Now what", "Then what")) for t in asks["plain"])
    assert any(t.startswith(("Next, show", "Now show", "Then show")) for t in orders)
    assert all(t.startswith(("And ", "Also, ", "Okay, ")) or t[:1].isupper() for t in orders)
    already = [said("Also, what's on {what}?", s, k, False, what="my card") for s in STYLES for k in range(50)]
    assert all(t.lower().startswith("also") for t in already)  # one connective is enough
    fixes = [said("Actually, make it {what}.", s, k, False, what="$5") for s in STYLES for k in range(50)]
    assert all(t.lower().startswith("actually") for t in fixes)
    openings = [said("What's the balance on {what}?", "plain", k, True, what="my savings") for k in range(100)]
    assert all(t.startswith(("What", "Hi. ", "Hello. ")) for t in openings)  # not opened as a follow-up


def test_answers_name_the_value_only_when_its_name_is_a_noun() -> None:
    texts = [reply("car service", "what it is", random.Random(k), s) for s in STYLES for k in range(100)]
    assert not any("what it is" in t for t in texts)
    named = [reply("$5", "amount", random.Random(k), s) for s in STYLES for k in range(100)]
    assert sum("amount" in t for t in named) > 100


def test_answers_fit_the_kind_of_value() -> None:
    assert kind("$685.09", "amount") == "money" and kind("45 minutes", "length") == "duration"
    assert kind("'Offsite planning'", "title") == "naming" and kind('"See you at 5, then."', "message") == "message"
    assert kind("June 10 at 3 pm", "time") == "when" and kind("4 shares", "quantity") == "count"
    assert kind("7E", "seat") == "other" and kind("Ken Watanabe", "customer's name") == "other"
    assert len(set(ANY) | {f for forms in BY_KIND.values() for f in forms} | set(TERSE)) >= 25


@settings(max_examples=100, deadline=None)
@given(
    text=st.sampled_from(
        ["$685.09", "'Offsite planning'", "45 minutes", "June 10", "4", "7E", '"Running late, start without me."']
    ),
    name=st.sampled_from(["amount", "title", "length", "date", "quantity", "seat", "message"]),
    style=st.sampled_from(STYLES),
    seed=st.integers(0, 1000),
)
def test_every_answer_carries_the_value_verbatim(text: str, name: str, style: Style, seed: int) -> None:
    assert text in reply(text, name, random.Random(seed), style)


def test_answers_come_in_many_forms_none_dominant() -> None:
    rng = random.Random(0)
    values = [
        ("$685.09", "amount"),
        ("'Offsite planning'", "title"),
        ("45 minutes", "length"),
        ("4", "quantity"),
        ("7E", "seat"),
    ]
    out = []
    for k in range(3000):
        text, name = values[k % len(values)]
        persona = Persona("Ana Ruiz", "chatty", rng.choice(STYLES))
        out.append(phrasing.answer_form(answer(Given(None, text, name, "t", "p"), rng, persona), text))
    forms = Counter(out)
    assert len(forms) >= 25 and max(forms.values()) / len(out) <= 0.1


# The figures ---------------------------------------------------------------------------------------


def test_boilerplate_and_core_on_hand_made_turns() -> None:
    assert phrasing.boilerplate("Hi there. I'm Emily Kim. Can you show me my deposits? Thanks!") == {
        "greeting",
        "intro",
        "closer",
    }
    assert phrasing.boilerplate("Is it open? (It's Monday, June 1 today.)") == {"date"}
    assert phrasing.boilerplate("Lucia Young here: book the room") == {"intro"}
    assert phrasing.boilerplate("Can you show me my deposits? I'm Emily Kim.") == set()
    assert phrasing.boilerplate("Thanks for last time. Now book it") == set()  # a thank-you that is not a closer
    a = phrasing.core("Hi! I'm Emily Kim. Move $460.00 from my checking to 'Trip fund' on June 3. Cheers.")
    b = phrasing.core("move $12.50 from my checking to 'Rent' on May 30")
    assert a == b == "move <money> from my checking to <q> on <date>"
    assert (
        phrasing.core("Unflag Sebastian Brown's 'Q3 review' email, it's done") == "unflag <name> <q> email, it's done"
    )
    assert phrasing.core("What does INV-00017 for ana@x.org owe at 3 pm?") == "what does <id> for <email> owe at <time>"
    plain = phrasing.core("how much do I have left for groceries?")
    assert phrasing.core("Got it. Also, how much do I have left for groceries?") == plain  # lead-ins are not phrasing
    assert phrasing.core("ok cool. how much do I have left for groceries?") == plain
    assert phrasing.core("Also available: how much do I have left?") != phrasing.core("how much do I have left?")
    assert phrasing.core("Quantity: 12.") == "quantity: <n>"  # "ty" inside a word is no thank-you
    assert phrasing.boilerplate("The quantity is 12, ty") == {"closer"}
    assert phrasing.answer_form("Call it 'Offsite planning'.", "'Offsite planning'") == "call it <v>."
    assert phrasing.third_person("Ana Ruiz's invoice is due", "Ana Ruiz")
    assert phrasing.third_person("Ana Ruiz wants to pay", "Ana Ruiz")
    assert not phrasing.third_person("I'm Ana Ruiz, pay it", "Ana Ruiz")


def _step(j: int) -> GTStep:
    return GTStep(server="banking", tool="get_account", arguments={"account_id": "ACC-0001"}, id=f"g{j + 1}")


def _task(i: int, *users: str, ask: bool = False, omitted: str | None = None) -> Task:
    turns = [Turn(user=u, calls=[] if ask and j == 0 else [_step(j)]) for j, u in enumerate(users)]
    if ask:
        turns[0] = turns[0].model_copy(update={"ask": True, "missing": ["account_id"]})
    synth = {"persona": {"name": "Ana Ruiz"}, "omitted": omitted}
    return Task(id=f"t{i}", kind="clarify" if ask else "mcp", servers=["banking"], turns=turns, meta={"synth": synth})


def test_figures_of_a_hand_made_set() -> None:
    tasks = [
        _task(0, "Hi! What's the balance on my savings? Thanks!", "And my checking?"),
        _task(1, "what's the balance on my savings", "Ana Ruiz's card is lost."),
        _task(
            2, "Which account is it on?", "It should be $5.00.", "Which account is it on?", ask=True, omitted="$5.00"
        ),
        _task(3, "Pay the bill", "Call it 'Rent'.", ask=True, omitted="'Rent'"),
    ]
    f = phrasing.figures(tasks)
    assert f["turns"] == 9
    assert f["boilerplate"] == round(1 / 9, 4) and f["boilerplate_by_kind"]["closer"] == round(1 / 9, 4)
    assert f["core_repeat"] == round(4 / 9, 4)  # the savings question twice, "which account is it on?" twice
    assert f["repeated_question"] == 0.25 and f["third_person"] == round(1 / 9, 4)
    assert f["clarify_answers"] == 2 and f["clarify_answer_forms"] == 2 and f["clarify_top_form_share"] == 0.5


def test_a_follow_up_that_asks_the_same_again_is_caught() -> None:
    def turn(*calls: tuple[str, str, dict[str, Any]]) -> TurnDraft:
        t = TurnDraft("x", {}, "complete")
        t.calls = [CallRecord(tool, args, {}, kind, 0) for tool, kind, args in calls]
        return t

    favourites = ("list_favourites", "read", {"user_id": "U1"})
    scene = SimpleNamespace(turns=[turn(favourites), turn(("draft_email", "write", {"to": "a"})), turn(favourites)])
    assert not asks_again(cast(Scene, scene), 1)  # a write came between: the list may have changed
    scene.turns.append(turn(favourites))
    assert asks_again(cast(Scene, scene), 3)
    other = SimpleNamespace(turns=[turn(favourites), turn(("list_favourites", "read", {"user_id": "U2"}))])
    assert not asks_again(cast(Scene, other), 1)


def test_habits_reword_around_the_slots_only() -> None:
    text = "Please show me {what}. I'm sure it's there, can you check?"
    assert habitual(text, ("formal", "could")) == "Please show me {what}. I am sure it is there, could you check?"
    assert habitual("Please move[ {much}] from {a}.", ("please_last",)) == "move[ {much}] from {a}, please."
    assert habitual("Please do {x}. And {y}.", ("please_last",)) == "Please do {x}. And {y}."  # one sentence only
    assert habitual("What is {what}?", ("so",), opening=True) == "What is {what}?"
    assert habitual("What is {what}?", ("so",)) == "So, what is {what}?"
    assert habitual("{what} can you show me", ("could", "let_me_see")) == "{what} could you let me see"
    assert habitual("Show me {show}", ("pull_up",)) == "Pull up {show}"
    assert habitual("Can you move {it} to {b}?", ("for_me", "just")) == "Can you just move {it} to {b} for me?"
    assert habitual("Can you check it? And {x}?", ("for_me",)) == "Can you check it? And {x}?"  # two asks: left
    assert habitual("Give me {x}. Tell me {y}.", ("get_me", "let_me_know")) == "Get me {x}. Tell me {y}."
    habits = [draw_habits(random.Random(k)) for k in range(300)]
    assert all(len(set(h) & set(group)) <= 1 for h in habits for group in CLASHES) and len(set(habits)) > 80


def test_terse_people_give_orders_and_sloppy_ones_skip_apostrophes() -> None:
    rng = random.Random(0)
    assert styled("Can you switch the {x} on?", "terse", rng) == "switch the {x} on"
    assert styled("Could you please show me {x}?", "terse", rng) == "show me {x}"
    assert styled("Can you tell me {x}? And {y}?", "terse", rng) == "can you tell me {x}? And {y}?"  # two asks: kept
    assert styled("Can you see {x}'s {y}? I'm here", "sloppy", random.Random(3)).endswith("{x}'s {y}? Im here")
