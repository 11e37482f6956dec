"""The social media seed: 150 users, ~1,300 follows, 600 posts with hashtags, ~1,600 likes, ~400 comments and
a few blocks (which remove follows both ways and hide posts).

Posts are drawn in time order, each with its likes and comments: the order of the draws from ``rng`` is part
of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows
from servers.social_media.schema import hashtags

TOPICS: dict[str, tuple[str, ...]] = {
    "running": (
        "Morning 10k along {street} in {city} done before work.",
        "New personal best at the {city} half marathon!",
        "Rainy tempo run today, legs are toast.",
        "Anyone else training for the fall marathon season?",
    ),
    "coffee": (
        "The pour-over at this little place in {city} is unreal.",
        "Third coffee of the day and it is only 10am.",
        "Trying a new single-origin from Ethiopia this week.",
        "Cold brew season is officially open.",
    ),
    "travel": (
        "Landed in {city} for the week, recommendations welcome!",
        "Window seat, good book, no wifi. Perfect flight.",
        "Packing light is a skill I still have not mastered.",
        "Sunset walk through downtown {city} tonight.",
    ),
    "photography": (
        "Golden hour over {street} was something else.",
        "Shot this whole roll on a 50mm prime.",
        "Editing three hundred photos from the weekend.",
        "Fog in {city} this morning made everything cinematic.",
    ),
    "python": (
        "Finally migrated our service to Python 3.12, tests all green.",
        "Type hints caught a bug before it shipped today.",
        "Hot take: list comprehensions are the best feature in any language.",
        "Refactored a 400 line function into eight small ones.",
    ),
    "startups": (
        "Big week at {company}: we shipped the new onboarding flow.",
        "Fundraising is a full-time job on top of your full-time job.",
        "Talked to twelve customers this week. Every one said something surprising.",
        "Hiring our first designer at {company}!",
    ),
    "cooking": (
        "Made fresh pasta from scratch tonight.",
        "Sunday meal prep: five lunches, zero regrets.",
        "Sourdough attempt number seven finally has an open crumb.",
        "Best tacos in {city}? Go.",
    ),
    "music": (
        "This album has been on repeat all week.",
        "Caught a great live set in {city} last night.",
        "Learning the opening riff of an old favorite on guitar.",
        "Vinyl haul from a record store on {street}.",
    ),
    "books": (
        "Finished a 600 page novel in four days.",
        "Book club pick this month is a slow burn but worth it.",
        "Library card is the best subscription there is.",
        "Reading on the train is my favorite part of the commute.",
    ),
    "gardening": (
        "The tomatoes are finally turning red.",
        "Planted basil, mint and far too much zucchini.",
        "Composting is going better than expected.",
        "First sunflower of the season opened today.",
    ),
    "hiking": (
        "Summited before sunrise, worth every step.",
        "Twelve miles of trail outside {city} this weekend.",
        "New boots, old trail, happy feet.",
        "Spotted a family of deer on the ridge this morning.",
    ),
    "football": (
        "What a finish last night!",
        "Watch party in {city} was loud.",
        "That transfer rumor better be true.",
        "Fantasy league draft is this weekend, send help.",
    ),
    "ai": (
        "Spent the afternoon evaluating language models on our support tickets.",
        "Prompting is just writing clear specs.",
        "Our team at {company} shipped an AI search feature today.",
        "Benchmarks are not the product.",
    ),
    "climate": (
        "Our building in {city} just switched to heat pumps.",
        "Biked to work every day this month.",
        "Community solar meeting tonight, come through.",
        "Planted thirty trees with the {company} volunteer crew.",
    ),
    "design": (
        "Spent the day simplifying a settings page to four options.",
        "Good typography is invisible.",
        "Redesigned our dashboard at {company}, feedback welcome.",
        "Whitespace is a feature.",
    ),
}
EXTRA_TAGS = ("weekend", "mondaymotivation", "tbt", "goodvibes", "learning", "community", "nofilter", "life")
COMMENTS = (
    "Love this!",
    "So true.",
    "Congrats, well deserved!",
    "Where is this?",
    "Need to try this.",
    "Same here, honestly.",
    "This made my day.",
    "Totally agree.",
    "Great shot!",
    "Tell me more!",
    "Ha, relatable.",
    "Saving this for later.",
    "Interesting take, not sure I agree.",
    "Wow.",
    "Count me in!",
    "Any tips for a beginner?",
)
BIOS = (
    "Runner, reader, coffee enthusiast.",
    "Software engineer at {company}.",
    "Designer. Dog person. {city}.",
    "Photographer based in {city}.",
    "Building things at {company}.",
    "Home cook and weekend hiker.",
    "Music, books and long walks.",
    "Product manager. Opinions my own.",
    "Climate nerd and gardener.",
    "Traveling one city at a time.",
    "Data scientist at {company}.",
    "Just here for the football takes.",
)


Pair = tuple[str, str]


@dataclass
class Rows:
    """Posts and what hangs off them, filled post by post."""

    posts: list[Row] = field(default_factory=list)
    tags: list[Pair] = field(default_factory=list)
    likes: dict[Pair, str] = field(default_factory=dict)
    comments: list[Row] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """150 users, ~1,300 follows, 600 posts with hashtags, ~1,600 likes, ~400 comments, a few blocks."""
    people = users(rng, now)
    insert_rows(db, "users", people)
    ids = [u[0] for u in people]
    interests = {uid: rng.sample(list(TOPICS), 3) for uid in ids}
    links = follows(rng, now, ids)
    blocked = blocks(rng, now, ids, links)
    insert_rows(db, "follows", [(a, b, t) for (a, b), t in sorted(links.items())])
    insert_rows(db, "blocks", [(a, b, t) for (a, b), t in sorted(blocked.items())])
    out = Rows()
    moments = sorted(fake.moment(rng, now, 120, 0) - timedelta(minutes=1) for _ in range(600))
    for n, t in enumerate(moments, 1):
        post(rng, now, out, f"PST-{n:05d}", t, ids, interests, blocked)
    insert_rows(db, "posts", out.posts)
    insert_rows(db, "post_hashtags", out.tags)
    insert_rows(db, "likes", [(u, p, t) for (u, p), t in sorted(out.likes.items())])
    out.comments.sort(key=lambda c: (c[3], c[1]))
    insert_rows(
        db, "comments", [(f"CMT-{i:05d}", p, u, text, fake.iso(t)) for i, (u, p, text, t) in enumerate(out.comments, 1)]
    )


def users(rng: random.Random, now: datetime) -> list[Row]:
    found: list[Row] = []
    handles: set[str] = set()
    for i in range(1, 151):
        first, last = fake.person(rng)
        handle = f"{first.lower()}{last.lower()[: rng.randint(1, len(last))]}"
        while handle in handles:
            handle += str(rng.randint(0, 9))
        handles.add(handle)
        city = fake.city(rng)[0]
        bio = rng.choice(BIOS).format(company=rng.choice(fake.COMPANIES), city=city)
        found.append(
            (
                f"USR-{i:04d}",
                handle,
                f"{first} {last}",
                bio,
                city,
                int(rng.random() < 0.08),
                fake.iso(fake.moment(rng, now, 2500, -200)),
            )
        )
    return found


def follows(rng: random.Random, now: datetime, ids: list[str]) -> dict[Pair, str]:
    """Everyone follows a few of the 30 most popular users and a few others."""
    popular = ids[:30]
    found: dict[Pair, str] = {}
    for uid in ids:
        n = rng.randint(2, 10)
        for target in rng.sample(popular, min(3, n)) + rng.sample(ids, n):
            if target != uid:
                found[(uid, target)] = fake.iso(fake.moment(rng, now, 400, -1))
    return found


def blocks(rng: random.Random, now: datetime, ids: list[str], links: dict[Pair, str]) -> dict[Pair, str]:
    """About 20 blocks; each removes the follows between the two users."""
    found: dict[Pair, str] = {}
    for _ in range(20):
        a, b = rng.sample(ids, 2)
        if (b, a) not in found:
            found[(a, b)] = fake.iso(fake.moment(rng, now, 200, -1))
            links.pop((a, b), None)
            links.pop((b, a), None)
    return found


def post(
    rng: random.Random,
    now: datetime,
    out: Rows,
    post_id: str,
    t: datetime,
    ids: list[str],
    interests: dict[str, list[str]],
    blocked: dict[Pair, str],
) -> None:
    """One post on one of its author's topics, then likes and comments from users no block separates."""
    author = rng.choice(ids[:30]) if rng.random() < 0.3 else rng.choice(ids)
    topic = rng.choice(interests[author])
    text = rng.choice(TOPICS[topic]).format(
        city=rng.choice(fake.CITIES)[0], street=rng.choice(fake.STREETS), company=rng.choice(fake.COMPANIES)
    )
    extra = [f"#{topic}"] + ([f"#{rng.choice(EXTRA_TAGS)}"] if rng.random() < 0.35 else [])
    content = f"{text} {' '.join(extra)}"
    out.posts.append((post_id, author, content, fake.iso(t)))
    out.tags.extend((post_id, tag) for tag in hashtags(content))
    hidden = {b for a, b in blocked if a == author} | {a for a, b in blocked if b == author}
    age = max(1, int((now - t).total_seconds() // 60))
    for liker in rng.sample(ids, rng.choice((0, 1, 1, 2, 2, 3, 4, 6, 9))):
        if liker not in hidden:
            out.likes[(liker, post_id)] = fake.iso(t + timedelta(minutes=rng.randint(1, age)))
    for _ in range(rng.choice((0, 0, 0, 0, 1, 1, 2))):
        commenter = rng.choice(ids)
        if commenter not in hidden:
            out.comments.append((commenter, post_id, rng.choice(COMMENTS), t + timedelta(minutes=rng.randint(1, age))))
