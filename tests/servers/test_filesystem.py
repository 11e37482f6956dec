"""Filesystem, shell state and reading: every read tool succeeds on the seed and fails cleanly."""

from __future__ import annotations

from tests.conftest import World

F = "filesystem"
HOME = "/home/maya"


def names(world: World, path: str = ".", **kw: object) -> list[str]:
    return [e["name"] for e in world.ok(F, "list_directory", path=path, show_hidden=True, limit=100, **kw)["entries"]]


def test_pwd_cd_chain(world: World) -> None:
    assert world.ok(F, "print_working_directory")["cwd"] == HOME
    assert world.ok(F, "change_directory", path="projects/weather-cli/src")["cwd"] == f"{HOME}/projects/weather-cli/src"
    world.ok(F, "change_directory", path="../../data-pipeline/./data")
    assert world.ok(F, "print_working_directory")["cwd"] == f"{HOME}/projects/data-pipeline/data"
    assert "sales_2026_q1.csv" in names(world)
    assert "No such file" in world.err(F, "change_directory", path="shared")  # only in the home directory


def test_cd_errors_and_symlinks(world: World) -> None:
    assert "No such file" in world.err(F, "change_directory", path="nowhere")
    assert "Not a directory" in world.err(F, "change_directory", path="Documents/todo.md")
    assert "Permission denied" in world.err(F, "change_directory", path="/root")
    assert "Empty path" in world.err(F, "change_directory", path="   ")
    assert "invalid arguments" in world.err(F, "change_directory", path="")
    assert world.ok(F, "change_directory", path="shared")["cwd"] == "/srv/shared"  # symlink followed
    assert world.ok(F, "change_directory", path="../../../..")["cwd"] == "/"
    assert world.ok(F, "change_directory")["cwd"] == HOME  # default '~'
    assert world.ok(F, "change_directory", path="~/Music//playlists/")["cwd"] == f"{HOME}/Music/playlists"


def test_users_and_switch_user(world: World) -> None:
    me = world.ok(F, "get_current_user")
    assert me["user"] == "maya" and "wheel" in me["groups"] and me["can_switch_user"]
    users = world.ok(F, "list_users")
    assert {u["username"] for u in users["users"]} >= {"root", "maya", "sam", "alex"}
    assert any(g["group"] == "team" and "sam" in g["members"] for g in users["groups"])
    assert "No user" in world.err(F, "switch_user", username="mallory")
    assert "already" in world.err(F, "switch_user", username="maya")
    world.ok(F, "switch_user", username="root")
    assert world.ok(F, "get_current_user")["user"] == "root"
    assert world.ok(F, "print_working_directory")["cwd"] == "/root"
    assert "rw-------" in world.ok(F, "get_file_info", path="/etc/shadow")["permissions"]
    assert world.ok(F, "read_file", path="/etc/shadow")["total_lines"] == 5
    world.ok(F, "switch_user", username="alex")
    assert world.ok(F, "print_working_directory")["cwd"] == "/home/alex"
    assert "wheel" in world.err(F, "switch_user", username="root")
    assert "invalid arguments" in world.err(F, "switch_user", username="")


def test_disk_free(world: World) -> None:
    df = world.ok(F, "get_disk_free")
    assert df["capacity_bytes"] == df["used_bytes"] + df["free_bytes"] and df["files"] > 200
    assert "unknown argument" in world.err(F, "get_disk_free", device="/dev/sdb")


def test_list_directory_options(world: World) -> None:
    plain = [e["name"] for e in world.ok(F, "list_directory")["entries"]]
    assert "Documents" in plain and ".bashrc" not in plain
    assert ".bashrc" in names(world)
    long = world.ok(F, "list_directory", path="projects/scripts", long=True)["entries"]
    backup = next(e for e in long if e["name"] == "backup.sh")
    assert backup["permissions"] == "-rwxr-xr-x" and backup["owner"] == "maya"
    rec = world.ok(F, "list_directory", path="projects/weather-cli", recursive=True, limit=100)
    assert f"{HOME}/projects/weather-cli/src/weather_cli/api.py" in [e["path"] for e in rec["entries"]]
    big = world.ok(F, "list_directory", path="Downloads", sort_by="size", long=True)["entries"]
    assert big[0]["size"] >= big[-1]["size"]
    one = world.ok(F, "list_directory", path="Documents/todo.md")
    assert one["total"] == 1
    paged = world.ok(F, "list_directory", path="/etc", limit=2, offset=2)
    assert paged["count"] == 2 and paged["total"] > 4
    assert "Permission denied" in world.err(F, "list_directory", path="/home/sam")
    assert "/home/sam" in world.ok(F, "list_directory", path="/home", recursive=True)["permission_denied"]
    assert "invalid arguments" in world.err(F, "list_directory", limit=0)
    assert "invalid arguments" in world.err(F, "list_directory", sort_by="colour")


def test_show_tree(world: World) -> None:
    tree = world.ok(F, "show_tree", path="projects/weather-cli", max_depth=3)
    assert "|-- src/" in tree["tree"] and "api.py" in tree["tree"]
    assert tree["files"] >= 10
    dirs = world.ok(F, "show_tree", path="/", max_depth=2, directories_only=True)
    assert "root/  [permission denied]" in dirs["tree"] and dirs["files"] == 0
    assert "Not a directory" in world.err(F, "show_tree", path="/etc/hosts")
    assert "invalid arguments" in world.err(F, "show_tree", max_depth=11)


def test_get_file_info(world: World) -> None:
    info = world.ok(F, "get_file_info", path="Documents/contacts.csv")
    assert info["mime_type"] == "text/csv" and info["lines"] == 61 and info["writable"]
    link = world.ok(F, "get_file_info", path="todo.md", follow_symlinks=False)
    assert link["type"] == "symlink" and link["target"] == "Documents/todo.md"
    assert world.ok(F, "get_file_info", path="todo.md")["path"] == f"{HOME}/Documents/todo.md"
    photo = world.ok(F, "list_directory", path="Pictures/2025-lisbon", long=True)["entries"][0]
    assert world.ok(F, "get_file_info", path=photo["path"])["binary"] is True
    assert "No such file" in world.err(F, "get_file_info", path="old-link")  # dangling link
    assert "Not a directory" in world.err(F, "get_file_info", path="Documents/todo.md/x")
    assert "Permission denied" in world.err(F, "get_file_info", path="/home/sam/todo.txt")


def test_find_and_locate(world: World) -> None:
    py = world.ok(F, "find_files", path="projects", name="*.py", limit=100)
    assert py["total"] >= 8 and all(m["path"].endswith(".py") for m in py["matches"])
    big = world.ok(F, "find_files", path="~", type="file", min_size=1_000_000)
    assert big["total"] > 20 and all(m["size"] >= 1_000_000 for m in big["matches"])
    recent = world.ok(F, "find_files", path="/var/log", modified_after="2026-05-25")
    assert recent["total"] >= 3
    assert world.ok(F, "find_files", path="/", owner="alex", type="file")["total"] >= 4
    assert world.ok(F, "find_files", path="Documents", name="README*", ignore_case=True)["total"] == 0
    assert "ISO date" in world.err(F, "find_files", modified_after="last tuesday")
    assert "Not a directory" in world.err(F, "find_files", path="/etc/hosts")
    loc = world.ok(F, "locate_paths", query="weather_cli/api")
    assert loc["matches"][0]["path"] == f"{HOME}/projects/weather-cli/src/weather_cli/api.py"
    assert world.ok(F, "locate_paths", query="salary")["total"] == 0  # inside sam's 0750 home
    assert world.ok(F, "locate_paths", query="100%_")["total"] == 0
    assert world.ok(F, "locate_paths", query="README", ignore_case=False)["total"] >= 3
    assert "invalid arguments" in world.err(F, "locate_paths", query="")


def test_disk_usage_recent_distinct(world: World) -> None:
    du = world.ok(F, "disk_usage", path="~")
    assert du["entries"][0]["path"] == f"{HOME}/Pictures" and du["total_bytes"] > 100_000_000
    assert world.ok(F, "disk_usage", path="Documents/todo.md")["total_bytes"] > 50
    assert "Permission denied" in world.err(F, "disk_usage", path="/root")
    recent = world.ok(F, "list_recent_files", path="~", days=3)
    assert recent["files"] and recent["files"][0]["modified"] >= recent["files"][-1]["modified"]
    assert "No such file" in world.err(F, "list_recent_files", path="~/nope")
    ext = world.ok(F, "get_distinct_values", field="extension", path="/home/maya/projects")["values"]
    assert ext[".py"] >= 8 and ext[".js"] >= 5
    assert "sam" in world.ok(F, "get_distinct_values", field="owner")["values"]
    assert "invalid arguments" in world.err(F, "get_distinct_values", field="colour")


def test_read_head_tail_wc(world: World) -> None:
    todo = world.ok(F, "read_file", path="/home/maya/Documents/todo.md")
    assert todo["content"].startswith("# TODO") and not todo["truncated"]
    page = world.ok(F, "read_file", path="/var/log/syslog", start_line=10, max_lines=5, number_lines=True)
    assert page["returned"] == 5 and page["content"].lstrip().startswith("10\t") and page["truncated"]
    head = world.ok(F, "head_file", path="Documents/contacts.csv", lines=3)
    assert head["lines"][0] == "name,email,phone,city,company" and head["returned"] == 3
    tail = world.ok(F, "tail_file", path="/var/log/nginx/access.log", lines=2)
    assert tail["returned"] == 2 and tail["first_line"] == tail["total_lines"] - 1
    wc = world.ok(F, "count_words", path="/etc/passwd")
    assert wc["lines"] == 5 and wc["bytes"] >= wc["characters"]
    assert "Is a directory" in world.err(F, "read_file", path="Documents")
    assert "binary file" in world.err(F, "head_file", path="Downloads/lease-agreement.pdf")
    assert "Permission denied" in world.err(F, "tail_file", path="/var/log/auth.log")
    assert "No such file" in world.err(F, "count_words", path="nothing.txt")
    assert "invalid arguments" in world.err(F, "head_file", path="Documents/todo.md", lines=0)


def test_grep(world: World) -> None:
    todo = world.ok(F, "grep_files", pattern="TODO", path="projects", recursive=True)
    assert todo["files_matched"] >= 2 and all("TODO" in m["line"] for m in todo["matches"])
    err = world.ok(
        F,
        "grep_files",
        pattern="error",
        path="projects/data-pipeline/logs",
        recursive=True,
        ignore_case=True,
        files_only=True,
    )
    assert all(f.endswith(".log") for f in err["files"])
    only_py = world.ok(F, "grep_files", pattern="import", path="~", recursive=True, include="*.py", limit=100)
    assert only_py["matches"] and all(m["path"].endswith(".py") for m in only_py["matches"])
    inv = world.ok(F, "grep_files", pattern="[", path="Documents/todo.md", fixed_string=True, invert=True)
    assert inv["matches"][0]["line"] == "# TODO"
    assert world.ok(F, "grep_files", pattern="maya", path="/home", recursive=True)["permission_denied"] == [
        "/home/sam",
        "/home/alex/diary.md",
    ]
    assert "recursive=true" in world.err(F, "grep_files", pattern="x", path="projects")
    assert "Invalid regular expression" in world.err(F, "grep_files", pattern="(unclosed", path="Documents/todo.md")
    assert world.ok(F, "grep_files", pattern="(a+)+$", path="projects", recursive=True)["files_matched"] >= 0
    assert world.ok(F, "grep_files", pattern="(a+)+$", path="Documents/todo.md", fixed_string=True)["matches"] == []
    assert "binary" in world.ok(F, "grep_files", pattern="x", path="Pictures", recursive=True).__repr__()


def test_sort_uniq_cut(world: World) -> None:
    top = world.ok(
        F,
        "sort_lines",
        path="Documents/budget-2026.csv",
        field=4,
        delimiter=",",
        numeric=True,
        reverse=True,
        skip_header=True,
        max_lines=3,
    )["lines"]
    assert top[0].startswith("date,") and float(top[1].split(",")[3]) >= float(top[2].split(",")[3])
    alpha = world.ok(F, "sort_lines", path="/usr/share/dict/words", reverse=True, max_lines=2)["lines"]
    assert alpha[0] >= alpha[1]
    assert world.ok(F, "sort_lines", path="/etc/hosts", unique=True, ignore_case=True)["total_lines"] == 5
    cities = world.ok(
        F, "unique_lines", path="Documents/contacts.csv", field=4, delimiter=",", count=True, most_common_first=True
    )
    assert cities["counts"][0]["count"] >= cities["counts"][-1]["count"] and cities["distinct"] <= 21
    dup = world.ok(
        F,
        "unique_lines",
        path="projects/data-pipeline/data/sales_2025_q1.csv",
        field=3,
        delimiter=",",
        only_duplicates=True,
    )
    assert set(dup["lines"]) <= {"North", "South", "East", "West", "Central"}
    cut = world.ok(F, "cut_columns", path="/etc/passwd", fields="1,6", delimiter=":")
    assert "maya:/home/maya" in cut["lines"]
    rng = world.ok(F, "cut_columns", path="Documents/contacts.csv", fields="2-3", max_lines=1)
    assert rng["lines"] == ["email,phone"]
    assert "Invalid field range" in world.err(F, "cut_columns", path="Documents/contacts.csv", fields="3-1")
    assert "invalid arguments" in world.err(F, "cut_columns", path="Documents/contacts.csv", fields="a")
    assert "Is a directory" in world.err(F, "sort_lines", path="/etc")
    assert "binary" in world.err(F, "unique_lines", path="/bin/ls")


def test_diff_and_checksum(world: World) -> None:
    d = world.ok(
        F, "diff_files", path_a="Documents/reports/q4-2025-summary.md", path_b="Documents/reports/q1-2026-summary.md"
    )
    assert not d["identical"] and d["diff"].startswith("--- ") and d["lines_added"] > 0
    assert world.ok(F, "diff_files", path_a="todo.md", path_b="Documents/todo.md")["identical"]
    assert "No such file" in world.err(F, "diff_files", path_a="todo.md", path_b="missing.md")
    a = world.ok(F, "compute_checksum", path="Downloads/lease-agreement.pdf")
    b = world.ok(F, "compute_checksum", path="Downloads/lease-agreement.pdf", algorithm="md5")
    assert len(a["checksum"]) == 64 and len(b["checksum"]) == 32
    assert "Is a directory" in world.err(F, "compute_checksum", path="Downloads")
    assert "invalid arguments" in world.err(F, "compute_checksum", path="todo.md", algorithm="crc32")


def test_archives_list(world: World) -> None:
    dot = world.ok(F, "list_archive", archive_path="/home/maya/backups/dotfiles.tar")
    assert ".bashrc" in [e["path"] for e in dot["entries"]]
    notes = world.ok(F, "list_archive", archive_path="backups/notes-2026-04.tar.gz", limit=5)
    assert notes["total"] > 20 and notes["count"] == 5
    assert "not an archive" in world.err(F, "list_archive", archive_path="Documents/todo.md")
    assert "binary file" not in world.err(F, "list_archive", archive_path="Downloads/invoice-2026-04.pdf")
