"""Maya's home in the seed: dotfiles, ssh keys, app config and Documents (todo, meeting notes, idea lists,
reports, budget and contacts CSVs, recipes, letters)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from hub.kit import fake
from servers.filesystem.formats import token
from servers.filesystem.seed_projects import _media, _projects
from servers.filesystem.seed_tree import Tree, paragraph, people_csv, sentence
from servers.filesystem.seed_words import EXPENSES, HOST, OBJECTS, RECIPES, ROOMS, TOPICS, VERBS, WORDS


def _maya(t: Tree, rng: random.Random, now: datetime) -> None:
    """Maya's home: dotfiles, ssh keys, app config, documents, projects, media and a few links."""
    h = "/home/maya"
    _dotfiles(t, h)
    _ssh(t, rng, h)
    _app_config(t, rng, h)
    _documents(t, rng, now, f"{h}/Documents")
    _projects(t, rng, now, f"{h}/projects")
    _media(t, rng, h)
    t.ln(f"{h}/shared", "/srv/shared")
    t.ln(f"{h}/todo.md", "Documents/todo.md")
    t.ln(f"{h}/old-link", "Documents/drafts/removed.md")


def _dotfiles(t: Tree, h: str) -> None:
    """The home folder and its shell, git and vim settings."""
    t.d(h, "maya", mode=0o755)
    t.f(
        f"{h}/.bashrc",
        "# ~/.bashrc\nexport EDITOR=nano\nexport PATH=$HOME/projects/scripts:$PATH\nalias ll='ls -alF'\n"
        "alias gs='git status'\nalias serve='python3 -m http.server 8000'\nHISTSIZE=5000\n",
        days=200,
    )
    t.f(f"{h}/.profile", "if [ -f ~/.bashrc ]; then . ~/.bashrc; fi\nexport LANG=en_US.UTF-8\n", days=600)
    t.f(
        f"{h}/.gitconfig",
        "[user]\n\tname = Maya Lindqvist\n\temail = maya.lindqvist@example.com\n[init]\n\tdefaultBranch = main\n"
        "[pull]\n\trebase = true\n[alias]\n\tco = checkout\n\tlg = log --oneline --graph\n",
        days=250,
    )
    t.f(f"{h}/.vimrc", "set number\nset expandtab\nset shiftwidth=4\nsyntax on\n", days=500)


def _ssh(t: Tree, rng: random.Random, h: str) -> None:
    """A private ssh folder: key pair, config and known hosts."""
    t.d(f"{h}/.ssh", "maya", mode=0o700)
    t.f(
        f"{h}/.ssh/id_ed25519",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + token("maya-key", rng.random()) * 3
        + "\n-----END OPENSSH PRIVATE KEY-----\n",
        mode=0o600,
        days=400,
    )
    t.f(
        f"{h}/.ssh/id_ed25519.pub",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{token('pub', rng.random())[:40]} maya@{HOST}\n",
        days=400,
    )
    t.f(
        f"{h}/.ssh/config",
        "Host db\n    HostName db.internal\n    User maya\n\nHost github.com\n    IdentityFile ~/.ssh/id_ed25519\n",
        days=100,
    )
    t.f(
        f"{h}/.ssh/known_hosts",
        "".join(
            f"{hname} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{token(hname)[:40]}\n"
            for hname in ("github.com", "db.internal", "cache.internal", "10.0.0.12")
        ),
        days=30,
    )


def _app_config(t: Tree, rng: random.Random, h: str) -> None:
    """Settings under ~/.config."""
    t.f(
        f"{h}/.config/app/settings.json",
        '{\n  "theme": "dark",\n  "font_size": %d,\n  "autosave": true,\n  "recent": ["weather-cli", "blog"]\n}\n'
        % rng.choice((12, 13, 14)),
        days=20,
    )
    t.f(f"{h}/.config/git/ignore", "*.pyc\n__pycache__/\n.DS_Store\nnode_modules/\n.env\n", days=300)


def _documents(t: Tree, rng: random.Random, now: datetime, d: str) -> None:
    """Maya's Documents: to-dos, notes, reports, budget, contacts, recipes and letters."""
    _todo(t, rng, d)
    _meeting_notes(t, rng, now, d)
    _idea_lists(t, rng, d)
    _reports(t, rng, d)
    _budget(t, rng, d)
    _contacts(t, rng, d)
    _recipes(t, rng, d)
    _letters(t, rng, d)


def _todo(t: Tree, rng: random.Random, d: str) -> None:
    """A to-do list, about a third of it done."""
    todo = (
        ["# TODO", ""]
        + [
            f"- [{'x' if rng.random() < 0.35 else ' '}] {line}"
            for line in (
                "Renew passport",
                "Book dentist appointment",
                "Review pull request for weather-cli",
                "File quarterly taxes",
                "Call the landlord about the heating",
                "Back up the photo library",
                "Update the blog about SQLite",
                "Plan the Mount Hood hike",
                "Cancel the unused gym membership",
                "Send the Q1 report to Sam",
            )
        ]
        + [""]
    )
    t.f(f"{d}/todo.md", "\n".join(todo), days=2)


def _meeting_notes(t: Tree, rng: random.Random, now: datetime, d: str) -> None:
    """Meeting notes on 26 days of the last half year, with attendees and action items."""
    notes_dates = sorted(rng.sample(range(1, 170), 26))
    for i, back in enumerate(notes_dates):
        day = (now - timedelta(days=back)).date()
        topic = TOPICS[i % len(TOPICS)]
        people = ", ".join(fake.full_name(rng) for _ in range(rng.randint(2, 5)))
        body = (
            f"# {topic.capitalize()} - {day.isoformat()}\n\nAttendees: Maya Lindqvist, {people}\n"
            f"Location: {rng.choice(ROOMS)}\n\n"
            "## Notes\n"
            + "".join(f"- {sentence(rng)}\n" for _ in range(rng.randint(3, 7)))
            + "\n## Action items\n"
            + "".join(
                f"- [ ] {rng.choice(('Maya', 'Sam', 'Alex'))}: {rng.choice(VERBS).split()[0]} "
                f"{rng.choice(OBJECTS)} by {(day + timedelta(days=rng.randint(3, 21))).isoformat()}\n"
                for _ in range(rng.randint(1, 4))
            )
        )
        t.f(
            f"{d}/notes/{day.isoformat()}-{topic.replace(' ', '-').lower()}.md",
            body,
            mtime=fake.iso(datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.randint(9, 18))),
        )


def _idea_lists(t: Tree, rng: random.Random, d: str) -> None:
    """Lists of project ideas and books to read."""
    t.f(
        f"{d}/notes/project-ideas.md",
        "# Project ideas\n\n"
        + "".join(
            f"{n}. A {rng.choice(('CLI', 'web app', 'bot', 'dashboard', 'library'))} for {rng.choice(OBJECTS)[4:]}\n"
            for n in range(1, 9)
        ),
        days=40,
    )
    t.f(
        f"{d}/notes/reading-list.md",
        "# Reading list\n\n"
        + "".join(
            f"- [{'x' if rng.random() < 0.5 else ' '}] {rng.choice(WORDS).title()} of the {rng.choice(WORDS).title()} "
            f"- {fake.full_name(rng)}\n"
            for _ in range(14)
        ),
        days=15,
    )


def _reports(t: Tree, rng: random.Random, d: str) -> None:
    """Four quarterly summaries and a draft of the current one."""
    for q, year, back in (("q1", 2026, 55), ("q4", 2025, 140), ("q3", 2025, 230), ("q2", 2025, 320)):
        revenue = rng.randint(380, 900) * 1000
        t.f(
            f"{d}/reports/{q}-{year}-summary.md",
            f"# {q.upper()} {year} summary\n\nRevenue: ${revenue:,}\n"
            f"Growth vs previous quarter: {rng.uniform(-6, 18):.1f}%\nNew customers: {rng.randint(20, 140)}\n\n"
            f"## Highlights\n{paragraph(rng, 4)}\n\n## Risks\n{paragraph(rng, 2)}\n",
            days=back,
        )
    t.f(
        f"{d}/reports/draft-q2-2026-summary.md",
        f"# Q2 2026 summary (DRAFT)\n\nRevenue: TBD\n\n{paragraph(rng, 2)}\n",
        days=1,
    )


def _budget(t: Tree, rng: random.Random, d: str) -> None:
    """This year's expenses month by month, sorted by date."""
    budget = ["date,category,description,amount"]
    day0 = datetime(2026, 1, 1)
    for month in range(1, 6):
        budget.append(f"2026-{month:02d}-01,rent,Monthly rent,2150.00")
        for _ in range(rng.randint(18, 26)):
            cat, names = rng.choice(EXPENSES[:1] + EXPENSES[2:])
            dd = rng.randint(1, 28)
            budget.append(
                f"2026-{month:02d}-{dd:02d},{cat},{rng.choice(names)},"
                f"{fake.money(rng, 4, 180 if cat != 'travel' else 900):.2f}"
            )
    t.f(
        f"{d}/budget-2026.csv",
        "\n".join([budget[0]] + sorted(budget[1:])) + "\n",
        mtime=fake.iso(day0 + timedelta(days=150)),
    )


def _contacts(t: Tree, rng: random.Random, d: str) -> None:
    """An address book of 60 people."""
    t.f(f"{d}/contacts.csv", people_csv(rng, 60, "company", fake.COMPANIES), days=70)


def _recipes(t: Tree, rng: random.Random, d: str) -> None:
    """One recipe per dish, its steps in a random order."""
    for slug, title, ingredients in RECIPES:
        steps = [
            f"{n}. {step}"
            for n, step in enumerate(
                rng.sample(
                    (
                        "Prep all the ingredients.",
                        "Heat the pan over medium heat.",
                        "Season generously.",
                        "Simmer for 20 minutes.",
                        "Taste and adjust the salt.",
                        "Rest for 10 minutes before serving.",
                        "Bake at 180 C for 45 minutes.",
                        "Stir in the herbs at the end.",
                    ),
                    5,
                ),
                1,
            )
        ]
        t.f(
            f"{d}/recipes/{slug}.md",
            f"# {title}\n\nServes {rng.randint(2, 6)}. Time: {rng.choice((20, 30, 45, 60, 90))} min.\n\n"
            "## Ingredients\n" + "".join(f"- {x}\n" for x in ingredients) + "\n## Steps\n" + "\n".join(steps) + "\n",
            days=500,
        )


def _letters(t: Tree, rng: random.Random, d: str) -> None:
    """Two letters and an empty drafts folder."""
    t.f(
        f"{d}/letters/cover-letter.md",
        f"Dear hiring team,\n\n{paragraph(rng, 3)}\n\n{paragraph(rng, 2)}\n\nBest regards,\nMaya Lindqvist\n",
        days=300,
    )
    t.f(
        f"{d}/letters/landlord-heating.md",
        "Hi Mr. Novak,\n\nThe heating in the bedroom has stopped working again. "
        "Could someone come by this week?\n\nThanks,\nMaya\n",
        days=12,
    )
    t.d(f"{d}/drafts", "maya")
