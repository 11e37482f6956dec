"""What map users do with their own things: bookmarks, lists and reviews, opened fresh or on the spot the dialogue
is about (``s.memory["place"]``); the user says who they are and is found with ``search_users`` (``SPEAKER``)."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.maps.intents import MODES, PLACE, REVIEWS, WORDS, find_place, focus, me, place_ref, route_args, user_asks
from servers.maps.intents_followups import LABELS, VISITS, the_place
from servers.maps.tools import maps


@maps.intent(covers=("search_users", "search_places", "save_place", "get_user"), follows=True)
def keep_for_later(s: Scene) -> None:
    """A user bookmarks a place with a label (and maybe a note), then checks what they have bookmarked."""
    u = me(s)
    near = s.memory.get("place")  # continuing a dialogue: another spot in the city it is about
    p = s.pick(
        PLACE + " AND p.place_id NOT IN (SELECT place_id FROM saved_places WHERE user_id = ?) AND p.city = ?",
        u["user_id"],
        near["city"] if near else s.pick("SELECT DISTINCT city FROM places")["city"],
    )
    label = s.rng.choice(("want to go", "date night", "with kids", "work", "favorite", "favorite"))
    note = s.rng.choice(("", "", "Ask for the patio", "Try the weekend menu", "Recommended by Sam"))
    how = {
        "want to go": "as somewhere I want to go",
        "date night": "as a date-night idea",
        "with kids": "as one for the kids",
        "work": "under work",
        "favorite": "as a favorite",
    }[label]
    uid = user_asks(
        s, u, WORDS.keep_for_later, p=place_ref(s, p), how=how, n=f", with the note '{note}'" if note else ""
    )
    found = find_place(s, p)
    args: dict[str, Any] = {"user_id": uid, "place_id": found["place_id"]}
    if not s.minimal and label != "favorite":
        args["label"] = label
    if not s.minimal and note:
        args["note"] = note
    s.call("save_place", **args)
    focus(s, found["place_id"])
    if s.by_chance(0.5):
        s.say(WORDS.keep_for_later_my_places)
        s.call("get_user", user_id=uid)


@maps.intent(covers=("search_users", "create_place_list", "search_places", "add_place_to_list"), follows=True)
def start_a_list(s: Scene) -> None:
    """A user starts a new list of places and puts a first place on it."""
    u = me(s)
    title = s.rng.choice(WORDS.list_names)
    if s.rows("SELECT 1 FROM place_lists WHERE user_id = ? AND name = ?", u["user_id"], title):
        raise Skip("the list exists")
    p = s.pick(PLACE + " AND p.city = ?", u["home_city"])
    public = s.rng.random() < 0.3
    name = s.given(title, f"'{title}'", "list name", "create_place_list", "name")
    shared = " Friends should be able to see it." if public else ""
    uid = user_asks(s, u, WORDS.start_a_list, name=name, shared=shared)
    made = s.call("create_place_list", user_id=uid, name=title, **({"is_public": True} if public else {}))
    s.memory["list"] = {"list_id": made["list_id"], "name": title}
    if not s.room(2, 1):
        return
    s.say(WORDS.start_a_list_first_place, p=place_ref(s, p))
    found = find_place(s, p)
    s.call("add_place_to_list", list_id=made["list_id"], place_id=found["place_id"])
    focus(s, found["place_id"])


@maps.intent(
    covers=("search_users", "get_user", "get_place_list", "get_directions", "add_place_to_list", "search_places"),
    follows=True,
)
def my_list(s: Scene) -> None:
    """A user looks at one of their lists and then either heads between two of its places or adds one more."""
    fresh = s.memory.get("list")
    if fresh:
        s.say(WORDS.my_list_just_made, n=fresh["name"])
        s.call("get_place_list", list_id=fresh["list_id"])
        return
    u = me(
        s,
        "u.user_id IN (SELECT l.user_id FROM place_lists l WHERE (SELECT COUNT(*) FROM list_items i "
        "WHERE i.list_id = l.list_id) >= 2)",
    )
    lst = s.pick(
        "SELECT * FROM place_lists l WHERE user_id = ? AND (SELECT COUNT(*) FROM list_items i "
        "WHERE i.list_id = l.list_id) >= 2",
        u["user_id"],
    )
    uid = user_asks(s, u, WORDS.my_list, n=lst["name"])
    mine = [x for x in s.call("get_user", user_id=uid)["lists"] if x["name"] == lst["name"]]
    if len(mine) != 1:
        raise Skip("the list name is not unique")
    items = s.call("get_place_list", list_id=mine[0]["list_id"])["places"]
    if not s.room(1, 1):
        return
    if s.rng.random() < 0.5 or not s.room(2, 1):
        a, b = items[0], items[1]
        same = (
            s.rows(
                "SELECT COUNT(DISTINCT city) AS n FROM places WHERE place_id IN (?, ?)", a["place_id"], b["place_id"]
            )[0]["n"]
            == 1
        )
        mode = "walking" if same and s.rng.random() < 0.6 else "driving"
        s.say(WORDS.my_list_directions, v=MODES[mode][0], h=MODES[mode][2], a=a["name"], b=b["name"])
        args = route_args(a["place_id"], b["place_id"], mode)
        s.call("get_directions", **args)
        return
    p = s.pick(
        PLACE + " AND p.city = (SELECT city FROM places WHERE place_id = ?) AND p.place_id NOT IN "
        "(SELECT place_id FROM list_items WHERE list_id = ?)",
        items[0]["place_id"],
        lst["list_id"],
    )
    s.say(WORDS.my_list_add_place, p=place_ref(s, p))
    found = find_place(s, p)
    s.call("add_place_to_list", list_id=mine[0]["list_id"], place_id=found["place_id"])


@maps.intent(covers=("search_users", "search_places", "write_review", "get_place"), follows=True)
def rate_a_visit(s: Scene) -> None:
    """A user rates a place they visited, in their own words, then sees where its average stands."""
    u = me(s)
    p = s.pick(PLACE + " AND p.place_id NOT IN (SELECT place_id FROM reviews WHERE user_id = ?)", u["user_id"])
    stars = s.rng.choice((1, 2, 3, 4, 5, 5, 4))
    text = s.rng.choice(REVIEWS[stars])
    st = s.given(stars, f"{stars} star{'s' if stars > 1 else ''}", "rating", "write_review", "rating")
    words = s.given(text, f'"{text}"', "review text", "write_review", "text")
    uid = user_asks(s, u, WORDS.rate_a_visit, p=place_ref(s, p), st=st, words=words)
    found = find_place(s, p)
    s.call("write_review", user_id=uid, place_id=found["place_id"], rating=stars, text=text)
    focus(s, found["place_id"])
    if s.by_chance(0.5):
        s.say(WORDS.rate_a_visit_new_score)
        s.call("get_place", place_id=found["place_id"])


@maps.intent(covers=("search_users", "save_place"), follows=True, opens=False)
def save_it(s: Scene) -> None:
    """The user keeps the spot in their saved spots, maybe with a label."""
    p = the_place(s)
    u = me(s, "u.user_id NOT IN (SELECT user_id FROM saved_places WHERE place_id = ?)", p["place_id"])
    label = s.rng.choice((None, None, *LABELS))
    how = f" {LABELS[label]}" if label else ""
    uid = user_asks(s, u, WORDS.save_it, name=p["name"], how=how)
    s.call("save_place", user_id=uid, place_id=p["place_id"], **({"label": label} if label else {}))


@maps.intent(covers=("search_users", "get_user", "add_place_to_list"), follows=True, opens=False)
def onto_my_list(s: Scene) -> None:
    """The user puts the spot on one of their lists, named as they call it."""
    p = the_place(s)
    u = me(s)
    lst = s.pick(
        "SELECT * FROM place_lists l WHERE l.user_id = ? AND l.list_id NOT IN "
        "(SELECT list_id FROM list_items WHERE place_id = ?)",
        u["user_id"],
        p["place_id"],
    )
    uid = user_asks(s, u, WORDS.onto_my_list, name=p["name"], lst=lst["name"])
    mine = s.find("get_user", "lists", "name", lst["name"], missing="the list is not on the profile", user_id=uid)
    s.call("add_place_to_list", list_id=mine["list_id"], place_id=p["place_id"])
    s.memory["list"] = {"list_id": mine["list_id"], "name": lst["name"]}


@maps.intent(covers=("search_users", "write_review"), follows=True, opens=False)
def been_there(s: Scene) -> None:
    """The user has been to the spot before and leaves their stars and a line about it."""
    p = the_place(s)
    u = me(s, "u.user_id NOT IN (SELECT user_id FROM reviews WHERE place_id = ?)", p["place_id"])
    stars = s.rng.choice((1, 2, 3, 4, 4, 5, 5))
    text = s.rng.choice(VISITS[stars])
    uid = user_asks(s, u, WORDS.been_there, name=p["name"], n=stars, pl="s" if stars > 1 else "", text=text)
    s.call("write_review", user_id=uid, place_id=p["place_id"], rating=stars, text=text)


@maps.intent(covers=("search_users", "get_user"), follows=True, opens=False)
def what_i_saved(s: Scene) -> None:
    """The user asks what they have saved and which lists they keep."""
    u = me(s)
    if s.memory.get("me"):
        s.asked("get_user", user_id=u["user_id"])
    uid = user_asks(s, u, WORDS.what_i_saved)
    s.call("get_user", user_id=uid)


@maps.intent(covers=("search_users", "get_user"), weight=1.0)
def from_my_bookmarks(s: Scene) -> None:
    """A user looks through what they saved, to talk about one of those spots next."""
    u = me(s, "u.user_id IN (SELECT user_id FROM saved_places)")
    saved = s.rows(PLACE + " AND p.place_id IN (SELECT place_id FROM saved_places WHERE user_id = ?)", u["user_id"])
    if not saved:
        raise Skip("no saved spot with a unique name")
    uid = user_asks(s, u, WORDS.from_my_bookmarks)
    s.call("get_user", user_id=uid)
    focus(s, s.rng.choice(saved)["place_id"])
