"""Copies, backups, archives and data files: a safe copy checked by checksum, packing and restoring backups,
tallying, ranking and combining CSV files."""

from __future__ import annotations

import posixpath

from hub.kit.intent import Scene, Skip
from servers.filesystem.core import filesystem
from servers.filesystem.intents import (
    DOCS,
    HOME,
    NOTES,
    PIPELINE,
    REPORTS,
    WORDS,
    OnIt,
    exists,
    hand_off,
    listed,
    remember,
    start,
    under,
)

BACK_IT_UP = OnIt("copy_path", WORDS.back_it_up, {"destination": f"{HOME}/backups"}, key="source")


@filesystem.intent(covers=("locate_paths", "find_files", "copy_path", "compute_checksum"), weight=1.2, follows=True)
def safe_copy(s: Scene) -> None:
    """Maya finds a document by a word of its name, copies it into her backups, and checks the copy (or,
    after a turn about a file, keeps a copy of that one)."""
    start(s)
    known = s.memory.get("path")
    if known and s.turns:
        if exists(s, f"{HOME}/backups/{posixpath.basename(known)}") or not s.rows(
            "SELECT 1 FROM nodes WHERE path = ? AND type = 'file' AND (mode & 4) = 4", known
        ):
            raise Skip("nothing to copy")
        BACK_IT_UP.ask(s, known)
        return
    doc = s.rng.choice(
        (
            ("lease", f"{HOME}/Downloads/lease-agreement.pdf", "my lease agreement"),
            ("boarding", f"{HOME}/Downloads/boarding-pass-LIS.pdf", "my Lisbon boarding pass"),
            ("cover-letter", f"{DOCS}/letters/cover-letter.md", "my cover letter"),
            ("budget-2026", f"{DOCS}/budget-2026.csv", "my 2026 budget spreadsheet"),
            ("contacts.csv", f"{DOCS}/contacts.csv", "my contacts list"),
            ("photos-index", f"{HOME}/Pictures/photos-index.csv", "the photo index"),
        )
    )
    word, path, what = doc
    if exists(s, f"{HOME}/backups/{posixpath.basename(path)}"):
        raise Skip("already backed up")
    s.say(WORDS.safe_copy, what=what)
    if s.rng.random() < 0.6:
        src = listed(s.call("locate_paths", query=word), path, "matches")
    else:  # the name as she remembers it, searched for under her home
        got = s.call("find_files", path=HOME, name=f"*{word}*", ignore_case=True)
        src = listed(got, path, "matches")
    copied = s.call("copy_path", source=src, destination=f"{HOME}/backups")
    s.say(WORDS.safe_copy_verify_checksum)
    algo = s.rng.choice(({}, {}, {"algorithm": "md5"}, {"algorithm": "sha1"}))
    if algo:
        s.turns[-1].phrasing += (
            f" An {algo['algorithm'].upper()} comparison is fine."
            if algo["algorithm"] == "md5"
            else f" A {algo['algorithm'].upper()} comparison is fine."
        )
    s.call("compute_checksum", path=copied["source"], **algo)
    s.call("compute_checksum", path=copied["destination"], **algo)
    remember(s, copied["destination"])


BACKUPS = (
    (f"{DOCS}/recipes", "my recipes", "recipes"),
    (REPORTS, "the quarterly reports", "reports"),
    (f"{DOCS}/letters", "my letters", "letters"),
    (f"{HOME}/projects/blog", "the blog", "blog"),
    (f"{HOME}/projects/scripts", "my scripts", "scripts"),
    (f"{HOME}/Music/playlists", "my playlists", "playlists"),
    (f"{HOME}/.ssh", "my ssh setup", "ssh"),
)


@filesystem.intent(covers=("create_archive", "list_archive", "get_file_info", "compute_checksum"), weight=1.3)
def pack_backup(s: Scene) -> None:
    """Maya packs a folder into a compressed backup in ~/backups and checks what went in."""
    start(s)
    src, what, stem = s.rng.choice(BACKUPS)
    ext = s.rng.choice((".tar.gz", ".tar.gz", ".tgz", ".zip"))
    name = f"{stem}-{s.now.strftime('%Y-%m')}{ext}"
    if exists(s, f"{HOME}/backups/{name}"):
        raise Skip("exists")
    arch = s.given(f"{HOME}/backups/{name}", f"'{name}'", "backup name", "create_archive", "archive_path")
    s.say(WORDS.pack_backup, what=what, arch=arch)
    made = s.call("create_archive", archive_path=f"{HOME}/backups/{name}", sources=[src])
    branch = s.rng.random()
    if branch < 0.4:
        s.say(WORDS.pack_backup_list_contents)
        s.call("list_archive", archive_path=made["archive"])
    elif branch < 0.55:
        s.say(WORDS.pack_backup_size)
        s.call("get_file_info", path=made["archive"])
    elif branch < 0.7:
        s.say(WORDS.pack_backup_checksum)
        s.call("compute_checksum", path=made["archive"])
    else:
        s.say(WORDS.pack_backup_first_ten)
        s.call("list_archive", archive_path=made["archive"], limit=10)
    s.memory["archive"] = made["archive"]


@filesystem.intent(covers=("make_directory", "extract_archive", "list_directory", "diff_files"), weight=1.3)
def restore_backup(s: Scene) -> None:
    """Maya unpacks one of her backups into a new folder to compare an old file with today's."""
    start(s)
    choice = s.rng.choice(
        (
            (f"{HOME}/backups/dotfiles.tar", "my dotfiles backup", ".vimrc", f"{HOME}/.vimrc", "vim settings"),
            (f"{HOME}/backups/dotfiles.tar", "my dotfiles backup", ".bashrc", f"{HOME}/.bashrc", "bashrc"),
            (
                f"{HOME}/backups/notes-2026-04.tar.gz",
                "the April notes backup",
                "notes/reading-list.md",
                f"{NOTES}/reading-list.md",
                "reading list",
            ),
            (
                f"{HOME}/backups/notes-2026-04.tar.gz",
                "the April notes backup",
                "notes/project-ideas.md",
                f"{NOTES}/project-ideas.md",
                "project ideas list",
            ),
        )
    )
    arch, what, inner, live, thing = choice
    name = s.rng.choice(("restore", "restored", "from-backup", "old-copy"))
    dest = f"{HOME}/{name}"
    if exists(s, dest):
        raise Skip("exists")
    new = s.given(dest, f"'~/{name}'", "folder", "make_directory", "path")
    s.say(WORDS.restore_backup, what=what, thing=thing, new=new)
    made = s.call("make_directory", path=dest)
    s.call("extract_archive", archive_path=arch, destination=made["path"])
    s.say(WORDS.restore_backup_compare, thing=thing)
    out = s.call("list_directory", path=made["path"], recursive=True, show_hidden=True)
    old = listed(out, f"{dest}/{inner}")
    how = s.rng.choice(({}, {}, {"context": 0}, {"ignore_case": True}))
    if how:
        s.turns[-1].phrasing += " Just the changed lines." if "context" in how else " Case doesn't matter."
    s.call("diff_files", path_a=old, path_b=live, **how)
    remember(s, live)


SALES = {4: "region", 5: "product"}
CSVS = (  # path, how Maya names it, {column: (field number, how she names the column)}
    (f"{DOCS}/budget-2026.csv", "my 2026 budget spreadsheet", {2: "category", 3: "payee"}),
    (f"{DOCS}/contacts.csv", "my contacts list", {4: "city", 5: "company"}),
    (f"{HOME}/Pictures/photos-index.csv", "the photo index in my Pictures", {2: "album", 4: "camera"}),
    ("/srv/shared/team-contacts.csv", "the team contact sheet in the shared folder", {4: "city", 5: "role"}),
)


@filesystem.intent(covers=("head_file", "unique_lines", "cut_columns"), weight=1.2)
def spreadsheet_tally(s: Scene) -> None:
    """Maya peeks at a CSV's columns, then tallies one column, most common first."""
    start(s)
    path, what, cols = s.rng.choice(
        CSVS
        + tuple(
            (p, f"the {p[-11:-4].replace('_', ' ').upper()} sales export in the data-pipeline data folder", SALES)
            for p in [r["path"] for r in under(s, f"{PIPELINE}/data", "sales_*")]
        )
    )
    field, col = s.rng.choice(sorted(cols.items()))
    s.say(WORDS.spreadsheet_tally, what=what)
    top = s.call("head_file", path=path)
    if hand_off(s, top["path"]):
        return
    branch = s.rng.random()
    if branch < 0.5:
        s.say(WORDS.spreadsheet_tally_most_common, c=col)
        s.call("unique_lines", path=top["path"], field=field, delimiter=",", count=True, most_common_first=True)
    elif branch < 0.75:
        s.say(WORDS.spreadsheet_tally_alphabetical, c=col)
        s.call("unique_lines", path=top["path"], field=field, delimiter=",", count=True)
    elif branch < 0.9:
        s.say(WORDS.spreadsheet_tally_distinct, c=col)
        s.call("unique_lines", path=top["path"], field=field, delimiter=",")
    else:
        s.say(WORDS.spreadsheet_tally_cut_columns, c=col, f=f"1,{field}")
        s.call("cut_columns", path=top["path"], fields=f"1,{field}")


@filesystem.intent(covers=("head_file", "sort_lines", "cut_columns"), weight=1.2)
def biggest_rows(s: Scene) -> None:
    """Maya ranks a CSV by an amount column, then keeps just the columns she cares about."""
    start(s)
    sales = [r["path"] for r in under(s, f"{PIPELINE}/data", "sales_*.csv")]
    options = [(f"{DOCS}/budget-2026.csv", "my 2026 budget", 4, "expenses", "1,3,4", "the date, payee and amount")]
    options += [
        (
            p,
            f"the {p[-11:-4].replace('_', ' ').upper()} sales export in the data-pipeline data folder",
            7,
            "orders",
            "1,4,7",
            "the order number, product and total",
        )
        for p in sales
    ]
    path, what, field, rows_word, keep, keep_words = s.rng.choice(options)
    n = s.rng.choice((5, 10, 15))
    s.say(WORDS.biggest_rows, n=n, r=rows_word, what=what)
    top = s.call("head_file", path=path)
    s.call(
        "sort_lines",
        path=top["path"],
        field=field,
        delimiter=",",
        numeric=True,
        reverse=True,
        skip_header=True,
        **({} if s.minimal else {"max_lines": n + 1}),
    )
    if hand_off(s, top["path"]):
        return
    s.say(WORDS.biggest_rows_cut_columns, k=keep_words, f=keep)
    if s.rng.random() < 0.5:
        s.call("cut_columns", path=top["path"], fields=keep)
    else:
        s.turns[-1].phrasing += " The first 30 rows will do."
        s.call("cut_columns", path=top["path"], fields=keep, max_lines=30)


@filesystem.intent(covers=("find_files", "concatenate_files", "count_words"))
def combine_sales(s: Scene) -> None:
    """Maya joins quarterly sales CSVs (a year, or half of one) into one file and asks how many rows it has."""
    start(s)
    year, glob, stem = s.rng.choice(
        (
            ("2025", "sales_2025_q?.csv", "2025"),
            ("the first half of 2025", "sales_2025_q[12].csv", "2025-h1"),
            ("the second half of 2025", "sales_2025_q[34].csv", "2025-h2"),
        )
    )
    if len(under(s, f"{PIPELINE}/data", glob)) < 2:
        raise Skip("fewer than two quarters")
    out = s.rng.choice((f"sales-{stem}.csv", f"sales_{stem}_all.csv", f"{stem}-sales.csv"))
    dest = f"{PIPELINE}/data/{out}"
    if exists(s, dest):
        raise Skip("exists")
    new = s.given(dest, f"'{out}'", "output name", "concatenate_files", "destination")
    s.say(WORDS.combine_sales, y=year, new=new)
    found = s.call("find_files", path=f"{PIPELINE}/data", name=glob)["matches"]
    made = s.call("concatenate_files", sources=[m["path"] for m in found], destination=dest)
    if hand_off(s, made["path"]):
        return
    s.say(WORDS.combine_sales_count_rows)
    s.call("count_words", path=made["path"])
    remember(s, made["path"])
