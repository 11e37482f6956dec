"""Filesystem writes: each checked through read tools (ls, cat, stat), with cd/ls/mv/cp chains and permission rules."""

from __future__ import annotations

from tests.conftest import World

F = "filesystem"
HOME = "/home/maya"


def ls(world: World, path: str = ".") -> list[str]:
    return [e["name"] for e in world.ok(F, "list_directory", path=path, show_hidden=True, limit=100)["entries"]]


def cat(world: World, path: str) -> str:
    return world.ok(F, "read_file", path=path, max_lines=1000)["content"]


def test_mkdir_touch_write_append(world: World) -> None:
    out = world.ok(F, "make_directory", path="Documents/archive/2025", parents=True)
    assert out["created"] == [f"{HOME}/Documents/archive", f"{HOME}/Documents/archive/2025"]
    assert "archive" in ls(world, "Documents")
    assert world.ok(F, "make_directory", path="Documents/archive", parents=True)["created"] == []
    assert "File exists" in world.err(F, "make_directory", path="Documents/archive")
    assert "No such file" in world.err(F, "make_directory", path="a/b/c")
    assert "File exists" in world.err(F, "make_directory", path="Documents/todo.md/x", parents=True)
    assert "Permission denied" in world.err(F, "make_directory", path="/etc/myapp")
    assert "Invalid name" in world.err(F, "make_directory", path="bad\tname")
    world.ok(F, "touch_file", path="Documents/archive/2025/empty.txt")
    info = world.ok(F, "get_file_info", path="Documents/archive/2025/empty.txt")
    assert info["size"] == 0 and info["permissions"] == "-rw-r--r--" and info["modified"] == "2026-06-01T09:00:00"
    world.ok(F, "touch_file", path="Documents/contacts.csv")
    assert world.ok(F, "get_file_info", path="Documents/contacts.csv")["modified"] == "2026-06-01T09:00:00"
    assert "Permission denied" in world.err(F, "touch_file", path="/etc/hosts")
    created = world.ok(F, "write_file", path="Documents/notes/ideas.md", content="# Ideas\n- a recipe CLI\n")
    assert created["created"] and cat(world, "Documents/notes/ideas.md") == "# Ideas\n- a recipe CLI\n"
    world.ok(F, "write_file", path="Documents/notes/ideas.md", content="# Ideas\n")
    assert cat(world, "Documents/notes/ideas.md") == "# Ideas\n"
    assert "File exists" in world.err(F, "write_file", path="Documents/notes/ideas.md", content="x", overwrite=False)
    assert "Is a directory" in world.err(F, "write_file", path="Documents", content="x")
    assert "Permission denied" in world.err(F, "write_file", path="/etc/hostname", content="pwned\n")
    world.ok(F, "append_file", path="todo.md", content="- [ ] Water the plants")  # through the symlink
    assert cat(world, "Documents/todo.md").endswith("- [ ] Water the plants\n")
    world.ok(F, "append_file", path="Documents/new-log.txt", content="first", newline=False)
    assert world.ok(F, "count_words", path="Documents/new-log.txt")["bytes"] == 5
    assert "binary file" in world.err(F, "append_file", path="Downloads/invoice-2026-04.pdf", content="x")
    assert "invalid arguments" in world.err(F, "append_file", path="Documents/todo.md", content="")


def test_write_in_setgid_and_sticky_dirs(world: World) -> None:
    world.ok(F, "write_file", path="shared/maya-notes.md", content="hello team\n")
    info = world.ok(F, "get_file_info", path="/srv/shared/maya-notes.md")
    assert info["owner"] == "maya" and info["group"] == "team"
    world.ok(F, "make_directory", path="/srv/shared/designs")
    assert world.ok(F, "get_file_info", path="/srv/shared/designs")["permissions"] == "drwxr-sr-x"
    assert "sticky" in world.err(F, "remove_path", path="/tmp/build-8841.log")
    assert "sticky" in world.err(F, "move_path", source="/tmp/session-cache.json", destination="/tmp/mine.json")
    world.ok(F, "remove_path", path="/tmp/upload-tmp.csv")
    assert "upload-tmp.csv" not in ls(world, "/tmp")


def test_replace_and_concatenate(world: World) -> None:
    out = world.ok(F, "replace_in_file", path="projects/weather-cli/README.md", pattern="MIT", replacement="Apache-2.0")
    assert out["replacements"] == 1 and "Apache-2.0" in cat(world, "projects/weather-cli/README.md")
    world.ok(
        F, "replace_in_file", path="Documents/todo.md", pattern=r"- \[x\] (.*)", replacement=r"- DONE \1", regex=True
    )
    text = cat(world, "Documents/todo.md")
    assert "[x]" not in text and "- DONE " in text
    world.ok(F, "replace_in_file", path="Documents/todo.md", pattern="DONE", replacement="done", max_count=1)
    assert cat(world, "Documents/todo.md").count("- done ") == 1
    assert "No match" in world.err(
        F, "replace_in_file", path="Documents/todo.md", pattern="zzz-not-there", replacement="x"
    )
    assert "Invalid regular expression" in world.err(
        F, "replace_in_file", path="Documents/todo.md", pattern="(", replacement="", regex=True
    )
    assert "Invalid replacement" in world.err(
        F, "replace_in_file", path="Documents/todo.md", pattern="TODO", replacement=r"\9", regex=True
    )
    d = "projects/data-pipeline/data"
    out = world.ok(
        F, "concatenate_files", sources=[f"{d}/sales_2025_q3.csv", f"{d}/sales_2025_q4.csv"], destination="sales-h2.csv"
    )
    q3, q4 = (world.ok(F, "count_words", path=f"{d}/sales_2025_q{q}.csv")["lines"] for q in (3, 4))
    assert out["created"] and world.ok(F, "count_words", path="sales-h2.csv")["lines"] == q3 + q4
    world.ok(F, "concatenate_files", sources=["Documents/todo.md"], destination="sales-h2.csv", append=True)
    assert cat(world, "sales-h2.csv").endswith(cat(world, "Documents/todo.md"))
    assert "both an input and the output" in world.err(
        F, "concatenate_files", sources=["sales-h2.csv"], destination="sales-h2.csv"
    )
    assert "Permission denied" in world.err(F, "concatenate_files", sources=["/etc/shadow"], destination="x.txt")
    assert "invalid arguments" in world.err(F, "concatenate_files", sources=[], destination="x.txt")


def test_cd_cp_mv_chain(world: World) -> None:
    world.ok(F, "change_directory", path="projects")
    world.ok(F, "copy_path", source="weather-cli", destination="weather-cli-v2", recursive=True)
    assert "weather-cli-v2" in ls(world)
    assert world.ok(
        F, "diff_files", path_a="weather-cli/src/weather_cli/api.py", path_b="weather-cli-v2/src/weather_cli/api.py"
    )["identical"]
    world.ok(F, "change_directory", path="weather-cli-v2/src")
    assert ls(world) == ["weather_cli"]
    world.ok(F, "move_path", source="weather_cli/cache.py", destination="..")
    assert "cache.py" in ls(world, "..") and "cache.py" not in ls(world, "weather_cli")
    world.ok(F, "change_directory", path="../..")
    assert world.ok(F, "print_working_directory")["cwd"] == f"{HOME}/projects"
    world.ok(F, "move_path", source="weather-cli-v2", destination="/home/maya/Documents")
    assert "weather-cli-v2" not in ls(world) and "weather-cli-v2" in ls(world, "~/Documents")
    assert world.ok(F, "get_file_info", path="~/Documents/weather-cli-v2/src/weather_cli/api.py")["type"] == "file"
    assert "No such file" in world.err(F, "copy_path", source="weather-cli-v2", destination="x", recursive=True)


def test_copy_rules(world: World) -> None:
    out = world.ok(F, "copy_path", source="Documents/todo.md", destination="Documents/todo-backup.md")
    assert out["copied"] == 1 and cat(world, "Documents/todo-backup.md") == cat(world, "Documents/todo.md")
    world.ok(F, "copy_path", source="/etc/hosts", destination="Documents")
    hosts = world.ok(F, "get_file_info", path="Documents/hosts")
    assert hosts["owner"] == "maya" and hosts["modified"] == "2026-06-01T09:00:00"
    pdf = "Downloads/lease-agreement.pdf"
    world.ok(F, "copy_path", source=pdf, destination="Documents/lease.pdf")
    assert (
        world.ok(F, "compute_checksum", path="Documents/lease.pdf")["checksum"]
        == world.ok(F, "compute_checksum", path=pdf)["checksum"]
    )
    assert "recursive=true" in world.err(F, "copy_path", source="Documents", destination="/tmp")
    assert "into itself" in world.err(F, "copy_path", source="Documents", destination="Documents/notes", recursive=True)
    assert "same file" in world.err(F, "copy_path", source="Documents/todo.md", destination="Documents")
    assert "File exists" in world.err(
        F, "copy_path", source="Documents/todo.md", destination="Documents/contacts.csv", overwrite=False
    )
    assert "Permission denied" in world.err(F, "copy_path", source="/etc/shadow", destination="/tmp")
    assert "Permission denied" in world.err(
        F, "copy_path", source="/home/alex", destination="/tmp/alex", recursive=True
    )
    assert "Permission denied" in world.err(F, "copy_path", source="Documents/todo.md", destination="/etc")
    world.ok(F, "make_directory", path="Documents/drafts/todo.md")
    assert "Cannot overwrite directory" in world.err(
        F, "copy_path", source="Documents/todo.md", destination="Documents/drafts"
    )


def test_copy_runs_out_of_space(world: World) -> None:
    world.ok(F, "copy_path", source="Pictures", destination="Pictures-copy", recursive=True)
    assert "No space left" in world.err(F, "copy_path", source="Pictures", destination="Pictures-copy2", recursive=True)
    world.ok(F, "remove_path", path="Pictures-copy", recursive=True)
    assert "Pictures-copy" not in ls(world)
    world.ok(F, "copy_path", source="Pictures", destination="Pictures-copy2", recursive=True)


def test_move_rules(world: World) -> None:
    world.ok(F, "move_path", source="Downloads/exchange-rates.csv", destination="Documents/rates.csv")
    assert "rates.csv" in ls(world, "Documents") and "exchange-rates.csv" not in ls(world, "Downloads")
    world.ok(F, "move_path", source="todo.md", destination="todo-link.md")  # moves the link itself
    assert world.ok(F, "get_file_info", path="todo-link.md", follow_symlinks=False)["type"] == "symlink"
    assert "todo.md" in ls(world, "Documents")
    world.ok(F, "change_directory", path="Documents/notes")
    world.ok(F, "move_path", source="/home/maya/Documents", destination="/home/maya/Docs")
    assert world.ok(F, "print_working_directory")["cwd"] == f"{HOME}/Docs/notes"
    assert "into itself" in world.err(F, "move_path", source="/home/maya/Docs", destination="/home/maya/Docs/notes")
    world.ok(F, "make_directory", path="/home/maya/Docs/recipes/todo.md")
    assert "already exists and is a directory" in world.err(
        F, "move_path", source="/home/maya/Docs/todo.md", destination="/home/maya/Docs/recipes"
    )
    assert "same file" in world.err(
        F, "move_path", source="/home/maya/Docs/todo.md", destination="/home/maya/Docs/recipes/.."
    )
    assert "File exists" in world.err(
        F, "move_path", source="/home/maya/Docs/todo.md", destination="/home/maya/Docs/contacts.csv", overwrite=False
    )
    world.ok(F, "move_path", source="/home/maya/Docs/todo.md", destination="/home/maya/Docs/contacts.csv")
    assert cat(world, "/home/maya/Docs/contacts.csv").startswith("# TODO")
    assert "Permission denied" in world.err(F, "move_path", source="/etc/hosts", destination="/tmp")
    assert "No such file" in world.err(F, "move_path", source="ghost.txt", destination="/tmp")


def test_remove_and_rmdir(world: World) -> None:
    assert "Is a directory" in world.err(F, "remove_path", path="projects/blog")
    out = world.ok(F, "remove_path", path="projects/blog", recursive=True)
    assert out["entries_removed"] > 10 and "blog" not in ls(world, "projects")
    world.ok(F, "remove_path", path="old-link")  # a dangling symlink
    assert "old-link" not in ls(world)
    assert "Directory not empty" in world.err(F, "remove_directory", path="Documents/recipes")
    world.ok(F, "remove_directory", path="Documents/drafts")
    assert "drafts" not in ls(world, "Documents")
    assert "Not a directory" in world.err(F, "remove_directory", path="Documents/todo.md")
    world.ok(F, "change_directory", path="Documents/letters")
    assert "current directory" in world.err(F, "remove_path", path="/home/maya/Documents", recursive=True)
    assert "Refusing" in world.err(F, "remove_path", path="/", recursive=True)
    assert "Permission denied" in world.err(F, "remove_path", path="/etc/hosts")
    assert "Permission denied" in world.err(F, "remove_path", path="/home/alex", recursive=True)


def test_symlinks(world: World) -> None:
    out = world.ok(F, "create_symlink", target="/var/log/nginx", link_path="nginx-logs")
    assert out["resolves_to"] == "/var/log/nginx" and not out["dangling"]
    assert "access.log" in ls(world, "nginx-logs")
    world.ok(F, "create_symlink", target="../todo.md", link_path="Documents/notes/todo-up.md")
    assert cat(world, "Documents/notes/todo-up.md").startswith("# TODO")
    world.ok(F, "create_symlink", target="/srv/shared/handbook.md", link_path="Documents")
    assert (
        world.ok(F, "get_file_info", path="Documents/handbook.md", follow_symlinks=False)["target"]
        == "/srv/shared/handbook.md"
    )
    assert world.ok(F, "create_symlink", target="nowhere.txt", link_path="dangling")["dangling"]
    world.ok(F, "create_symlink", target="loop-b", link_path="loop-a")
    world.ok(F, "create_symlink", target="loop-a", link_path="loop-b")
    assert "Too many levels" in world.err(F, "read_file", path="loop-a")
    assert "File exists" in world.err(F, "create_symlink", target="x", link_path="nginx-logs")
    assert "Permission denied" in world.err(F, "create_symlink", target="/tmp", link_path="/etc/tmp-link")


def test_chmod(world: World) -> None:
    world.ok(F, "change_mode", path="projects/scripts/rename_photos.py", mode="u+x")
    assert world.ok(F, "get_file_info", path="projects/scripts/rename_photos.py")["permissions"] == "-rwxr--r--"
    world.ok(F, "change_mode", path="Documents/contacts.csv", mode="600")
    assert world.ok(F, "get_file_info", path="Documents/contacts.csv")["mode"] == "0600"
    out = world.ok(F, "change_mode", path="Documents/recipes", mode="go-rwx", recursive=True)
    assert out["changed"] >= 9 and out["permissions"] == "drwx------"
    world.ok(F, "change_mode", path="Documents/todo.md", mode="a=r,u+w")
    assert world.ok(F, "get_file_info", path="Documents/todo.md")["permissions"] == "-rw-r--r--"
    world.ok(F, "change_mode", path="Documents/todo.md", mode="0400")
    assert "Permission denied" in world.err(F, "write_file", path="Documents/todo.md", content="x")
    world.ok(F, "change_mode", path="Documents", mode="u-w")
    assert "Permission denied" in world.err(F, "touch_file", path="Documents/new.txt")
    assert "Operation not permitted" in world.err(F, "change_mode", path="/etc/hosts", mode="666")
    assert "invalid arguments" in world.err(F, "change_mode", path="Documents/todo.md", mode="999")
    assert "invalid arguments" in world.err(F, "change_mode", path="Documents/todo.md", mode="rwx")


def test_chown_needs_root(world: World) -> None:
    world.ok(F, "change_owner", path="Documents/notes", group="team", recursive=True)
    assert world.ok(F, "get_file_info", path="Documents/notes/reading-list.md")["group"] == "team"
    assert "only root" in world.err(F, "change_owner", path="Documents/todo.md", owner="sam")
    assert "not in group" in world.err(F, "change_owner", path="Documents/todo.md", group="adm")
    assert "No user" in world.err(F, "change_owner", path="Documents/todo.md", owner="nobody")
    assert "No group" in world.err(F, "change_owner", path="Documents/todo.md", group="nogroup")
    assert "Give an owner" in world.err(F, "change_owner", path="Documents/todo.md")
    world.ok(F, "switch_user", username="root")
    out = world.ok(F, "change_owner", path="/home/maya/Documents/todo.md", owner="sam", group="sam")
    assert out["owner"] == "sam" and out["changed"] == 1
    world.ok(F, "switch_user", username="maya")
    assert world.ok(F, "get_file_info", path="Documents/todo.md")["owner"] == "sam"
    assert "Permission denied" in world.err(F, "append_file", path="Documents/todo.md", content="x")


def test_archives_create_extract(world: World) -> None:
    out = world.ok(
        F, "create_archive", archive_path="backups/reports.tar.gz", sources=["Documents/reports", "Documents/todo.md"]
    )
    assert out["files"] == 6
    listing = world.ok(F, "list_archive", archive_path="backups/reports.tar.gz")
    assert {"reports", "reports/q1-2026-summary.md", "todo.md"} <= {e["path"] for e in listing["entries"]}
    assert world.ok(F, "get_file_info", path="backups/reports.tar.gz")["mime_type"] == "application/gzip"
    world.ok(F, "make_directory", path="restore")
    world.ok(F, "extract_archive", archive_path="backups/reports.tar.gz", destination="restore")
    assert sorted(ls(world, "restore")) == ["reports", "todo.md"]
    assert cat(world, "restore/todo.md") == cat(world, "Documents/todo.md")
    assert "File exists" in world.err(
        F, "extract_archive", archive_path="backups/reports.tar.gz", destination="restore"
    )
    world.ok(F, "write_file", path="restore/todo.md", content="changed\n")
    world.ok(F, "extract_archive", archive_path="backups/reports.tar.gz", destination="restore", overwrite=True)
    assert cat(world, "restore/todo.md").startswith("# TODO")
    world.ok(F, "extract_archive", archive_path="/home/maya/backups/dotfiles.tar", destination="/tmp")
    assert (
        ".bashrc" in ls(world, "/tmp")
        and world.ok(F, "get_file_info", path="/tmp/.config/git/ignore")["owner"] == "maya"
    )
    assert "File exists" in world.err(F, "create_archive", archive_path="backups/reports.tar.gz", sources=["Documents"])
    assert "Unknown archive type" in world.err(F, "create_archive", archive_path="backups/x.rar", sources=["Documents"])
    assert "Permission denied" in world.err(F, "create_archive", archive_path="x.tar", sources=["/home/alex"])
    assert "both be stored" in world.err(
        F, "create_archive", archive_path="x.tar", sources=["Documents/todo.md", "todo.md"]
    )
    assert "Permission denied" in world.err(
        F, "extract_archive", archive_path="backups/reports.tar.gz", destination="/etc"
    )
    assert "not an archive" in world.err(F, "extract_archive", archive_path="Documents/contacts.csv")
    world.ok(F, "write_file", path="evil.tar", content='PROVE-ARCHIVE/1\n[{"path": "x", "type": "bogus"}]')
    assert "damaged" in world.err(F, "list_archive", archive_path="evil.tar")
    world.ok(
        F,
        "write_file",
        path="escape.tar",
        content='PROVE-ARCHIVE/1\n[{"path": "../../etc/x", "type": "file", "content": "a", '
        '"target": null, "size": 1, "binary": 0, "mode": 420, "mtime": "2026-01-01T00:00:00"}]',
    )
    assert "Unsafe entry" in world.err(F, "extract_archive", archive_path="escape.tar", destination="restore")


def test_weird_inputs_are_tool_errors(world: World) -> None:
    for path in ("\x00", "a" * 300, "~" * 3, "/../../..", "//", "\ud800", "./.", "..."):
        out = world.call(F, "read_file", path=path)
        assert not out.ok and out.error
        out = world.call(F, "write_file", path=path, content="x")
        assert not out.ok or out.result["path"].startswith(HOME)
    assert "invalid" in world.err(F, "write_file", path="note.txt", content="\ud800").lower()
    assert "Invalid regular expression" in world.err(F, "grep_files", pattern="a{2,1}", path="Documents/todo.md")
    assert world.ok(F, "read_file", path="Documents/todo.md", start_line=10_000_000)["returned"] == 0
    assert world.ok(F, "find_files", path="/", min_size=10**12)["total"] == 0
