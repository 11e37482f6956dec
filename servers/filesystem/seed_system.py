"""The system part of the seed: /bin, /etc (accounts and configs), the web root, /var/log, /tmp, the shared
setgid /srv/shared and the other users' homes."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from hub.kit import fake
from servers.filesystem.formats import token
from servers.filesystem.seed_tree import Tree, paragraph, people_csv, sentence
from servers.filesystem.seed_words import AGENTS, ENDPOINTS, GROUPS, HOST, MEMBERS, SERVICES, TOPICS, USERS, WORDS


def _system(t: Tree, rng: random.Random, now: datetime) -> None:
    """/bin, /etc, /usr/share/dict, /var/www, the logs in /var/log and /tmp."""
    _bin(t)
    _etc_accounts(t)
    _etc_config(t)
    port = _web(t, rng)
    _syslog(t, rng, now)
    _auth_log(t, rng, now)
    _access_log(t, rng, now)
    _error_log(t, rng, now, port)
    _dpkg_log(t, rng)
    _tmp(t, rng)


def _bin(t: Tree) -> None:
    """The binaries in /bin: sized like the real ones, their content never shown."""
    for name, size in (
        ("bash", 1_396_520),
        ("cat", 35_280),
        ("ls", 138_216),
        ("grep", 186_072),
        ("python3", 5_904_904),
        ("tar", 510_080),
        ("nano", 283_144),
        ("sort", 117_104),
    ):
        t.b(f"/bin/{name}", size, "root", mode=0o755, days=600)


def _etc_accounts(t: Tree) -> None:
    """Host name, hosts, and the users and groups of /etc/passwd, /etc/group and /etc/shadow."""
    t.f("/etc/hostname", f"{HOST}\n", "root", days=800)
    t.f(
        "/etc/hosts",
        f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOST}\n10.0.0.12\tdb.internal\n10.0.0.15\tcache.internal\n"
        "::1\tip6-localhost ip6-loopback\n",
        "root",
        days=500,
    )
    t.f(
        "/etc/passwd",
        "".join(f"{u}:x:{uid}:{uid}:{name}:{home}:{sh}\n" for u, uid, name, home, sh in USERS),
        "root",
        days=200,
    )
    t.f(
        "/etc/group",
        "".join(f"{g}:x:{gid}:{','.join(u for gg, u in MEMBERS if gg == g)}\n" for g, gid in GROUPS),
        "root",
        days=200,
    )
    t.f(
        "/etc/shadow",
        "".join(f"{u}:$6${token(u, 'salt')[:16]}${token(u, 'hash')}:19800:0:99999:7:::\n" for u, *_ in USERS),
        "root",
        "root",
        0o600,
        days=200,
    )


def _etc_config(t: Tree) -> None:
    """System configuration: mounts, OS release, DNS, time zone, cron and sshd."""
    t.f(
        "/etc/fstab",
        "# <file system> <mount point> <type> <options> <dump> <pass>\n"
        "/dev/sda1\t/\text4\terrors=remount-ro\t0\t1\n/swapfile\tnone\tswap\tsw\t0\t0\n",
        "root",
        days=800,
    )
    t.f(
        "/etc/os-release",
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
        'VERSION="12 (bookworm)"\nID=debian\nHOME_URL="https://www.debian.org/"\n',
        "root",
        days=700,
    )
    t.f("/etc/resolv.conf", "nameserver 10.0.0.2\nnameserver 1.1.1.1\nsearch internal\n", "root", days=90)
    t.f("/etc/timezone", "America/Los_Angeles\n", "root", days=800)
    t.f(
        "/etc/crontab",
        "SHELL=/bin/sh\nPATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin\n\n"
        "17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly\n"
        "25 6\t* * *\troot\trun-parts --report /etc/cron.daily\n"
        "30 2\t* * *\tmaya\t/home/maya/projects/scripts/backup.sh\n"
        "0 3\t* * 0\tmaya\t/home/maya/projects/scripts/cleanup.sh\n",
        "root",
        days=60,
    )
    t.f(
        "/etc/ssh/sshd_config",
        "Port 22\nPermitRootLogin no\nPasswordAuthentication no\nPubkeyAuthentication yes\n"
        "X11Forwarding no\nAllowUsers maya sam alex\nClientAliveInterval 300\n",
        "root",
        days=150,
    )


def _web(t: Tree, rng: random.Random) -> int:
    """nginx proxying to the inventory API, the word list and the web root; returns the API port."""
    port = rng.choice((3000, 3001, 8080))
    t.f(
        "/etc/nginx/nginx.conf",
        "user www-data;\nworker_processes auto;\npid /run/nginx.pid;\n\nevents {\n    worker_connections 768;\n}\n\n"
        "http {\n    sendfile on;\n    keepalive_timeout 65;\n    access_log /var/log/nginx/access.log;\n"
        "    error_log /var/log/nginx/error.log;\n"
        "    include /etc/nginx/sites-enabled/*;\n}\n",
        "root",
        days=300,
    )
    t.f(
        "/etc/nginx/sites-available/inventory-api.conf",
        f"server {{\n    listen 80;\n    server_name inventory.internal;\n\n"
        f"    location /api/ {{\n        proxy_pass http://127.0.0.1:{port};\n        proxy_set_header Host $host;\n"
        f"    }}\n\n"
        "    location /static/ {\n        root /var/www/inventory;\n        expires 7d;\n    }\n}\n",
        "root",
        days=120,
    )
    t.ln("/etc/nginx/sites-enabled/inventory-api.conf", "../sites-available/inventory-api.conf", "root")
    t.f("/usr/share/dict/words", "\n".join(sorted(WORDS)) + "\n", "root", days=900)
    t.f(
        "/var/www/inventory/index.html",
        '<!doctype html>\n<html><head><title>Inventory</title>\n<link rel="stylesheet" href="/static/style.css">\n'
        '</head><body><div id="app">Loading inventory...</div><script src="/static/app.js"></script></body></html>\n',
        "www-data",
        days=100,
    )
    return port


def _syslog(t: Tree, rng: random.Random, now: datetime) -> None:
    """Three days of syslog, chronological."""
    start = now - timedelta(days=3)
    lines = []
    for i in range(260):
        start += timedelta(seconds=rng.randint(20, 1000))
        svc, msgs = rng.choice(SERVICES)
        msg = rng.choice(msgs).format(n=rng.randint(2, 254), pid=rng.randint(1000, 9999), hex=token(i)[:12])
        lines.append(f"{start.strftime('%b %d %H:%M:%S')} {HOST} {svc.format(pid=rng.randint(300, 9999))}: {msg}")
    t.f("/var/log/syslog", "\n".join(lines) + "\n", "root", "adm", 0o644, mtime=fake.iso(start))


def _auth_log(t: Tree, rng: random.Random, now: datetime) -> None:
    """Five days of ssh logins: users by key, strangers failing passwords."""
    auth, at = [], now - timedelta(days=5)
    for _ in range(90):
        at += timedelta(seconds=rng.randint(200, 6000))
        who = rng.choice(("maya", "maya", "sam", "alex", "admin", "oracle"))
        ip = f"{rng.choice(('192.168.1', '203.0.113', '198.51.100'))}.{rng.randint(2, 254)}"
        msg = (
            f"Accepted publickey for {who} from {ip} port {rng.randint(40000, 65000)} ssh2"
            if who in ("maya", "sam", "alex")
            else f"Failed password for invalid user {who} from {ip} port {rng.randint(40000, 65000)} ssh2"
        )
        auth.append(f"{at.strftime('%b %d %H:%M:%S')} {HOST} sshd[{rng.randint(1000, 9999)}]: {msg}")
    t.f("/var/log/auth.log", "\n".join(auth) + "\n", "root", "adm", 0o640, mtime=fake.iso(at))


def _access_log(t: Tree, rng: random.Random, now: datetime) -> None:
    """Two days of nginx access log."""
    acc, at = [], now - timedelta(days=2)
    for _ in range(320):
        at += timedelta(seconds=rng.randint(5, 500))
        ep = rng.choice(ENDPOINTS).format(n=rng.randint(1, 400))
        method = "POST" if ep in ("/api/orders", "/login") and rng.random() < 0.5 else "GET"
        status = rng.choices((200, 201, 304, 404, 500, 401), (70, 5, 10, 8, 3, 4))[0]
        acc.append(
            f"{rng.choice(('192.168.1', '10.0.0', '203.0.113'))}.{rng.randint(2, 254)} - - "
            f"[{at.strftime('%d/%b/%Y:%H:%M:%S')} +0000] "
            f'"{method} {ep} HTTP/1.1" {status} {rng.randint(120, 48000)} "-" "{rng.choice(AGENTS)}"'
        )
    t.f("/var/log/nginx/access.log", "\n".join(acc) + "\n", "root", "adm", 0o644, mtime=fake.iso(at))


def _error_log(t: Tree, rng: random.Random, now: datetime, port: int) -> None:
    """nginx failing to reach the API on ``port``."""
    errs = [
        f"{(now - timedelta(hours=rng.randint(1, 200))).strftime('%Y/%m/%d %H:%M:%S')} [error] "
        f"{rng.randint(100, 999)}#0: "
        f"*{rng.randint(1, 9999)} connect() failed (111: Connection refused) while connecting to upstream, "
        f'upstream: "http://127.0.0.1:{port}/api/items"'
        for _ in range(rng.randint(8, 20))
    ]
    t.f("/var/log/nginx/error.log", "\n".join(sorted(errs)) + "\n", "root", "adm", 0o644, hours=2, days=1)


def _dpkg_log(t: Tree, rng: random.Random) -> None:
    """Packages installed this year."""
    t.f(
        "/var/log/dpkg.log",
        "".join(
            f"2026-0{rng.randint(1, 5)}-{rng.randint(10, 28)} 0{rng.randint(1, 9)}:{rng.randint(10, 59)}:00 "
            f"status installed {pkg}:amd64 {ver}\n"
            for pkg, ver in (
                ("nginx", "1.22.1-9"),
                ("python3.11", "3.11.2-6"),
                ("git", "1:2.39.2-1.1"),
                ("sqlite3", "3.40.1-2"),
                ("nodejs", "18.19.0+dfsg-6"),
                ("ripgrep", "13.0.0-4"),
            )
        ),
        "root",
        days=150,
    )


def _tmp(t: Tree, rng: random.Random) -> None:
    """Leftovers of several users in /tmp."""
    for name, owner in (
        ("build-8841.log", "sam"),
        ("session-cache.json", "alex"),
        ("upload-tmp.csv", "maya"),
        ("npm-debug.log", "maya"),
        ("core-dump.txt", "sam"),
    ):
        t.f(f"/tmp/{name}", paragraph(rng, 2) + "\n", owner, mode=0o644, days=3)


def _shared(t: Tree, rng: random.Random) -> None:
    """/srv/shared, the team's group-writable folder."""
    _shared_docs(t, rng)
    _team_contacts(t, rng)
    _meeting_schedule(t, rng)
    _releases(t, rng)


def _shared_docs(t: Tree, rng: random.Random) -> None:
    """The folder itself and the team's two oldest documents."""
    t.d("/srv/shared", "root", "team", 0o2775)
    t.f(
        "/srv/shared/handbook.md",
        "# Team handbook\n\n## Working hours\nCore hours are 10:00-15:00 Pacific.\n\n"
        "## On-call\nThe on-call engineer answers pages within 15 minutes. Escalate to the platform group after 30 "
        "minutes.\n\n"
        f"## Notes\n{paragraph(rng, 5)}\n",
        "sam",
        "team",
        0o664,
        days=200,
    )
    t.f(
        "/srv/shared/onboarding.md",
        "# Onboarding checklist\n\n- [ ] Get a laptop from IT\n- [ ] Add your SSH key to /etc/ssh\n"
        "- [ ] Read the handbook\n- [ ] Pair with your buddy for a week\n- [ ] Ship a small change to weather-cli\n",
        "maya",
        "team",
        0o664,
        days=120,
    )


def _team_contacts(t: Tree, rng: random.Random) -> None:
    """A contact list of 30 colleagues."""
    roles = ("engineer", "designer", "manager", "analyst", "support")
    t.f("/srv/shared/team-contacts.csv", people_csv(rng, 30, "role", roles), "sam", "team", 0o664, days=60)


def _meeting_schedule(t: Tree, rng: random.Random) -> None:
    """One recurring meeting per weekday."""
    sched = ["# Recurring meetings\n"] + [
        f"- {day} {h}:00 - {topic}"
        for day, h, topic in zip(
            ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"), rng.sample(range(9, 17), 5), rng.sample(TOPICS, 5)
        )
    ]
    t.f("/srv/shared/meeting-schedule.md", "\n".join(sched) + "\n", "alex", "team", 0o664, days=30)


def _releases(t: Tree, rng: random.Random) -> None:
    """Release notes and a deploy token only the team may read."""
    log = ["# Changelog\n"]
    for minor in range(9, 0, -1):
        log.append(f"## v1.{minor}.0\n" + "".join(f"- {sentence(rng)}\n" for _ in range(rng.randint(2, 5))))
    t.f("/srv/shared/releases/CHANGELOG.md", "\n".join(log), "sam", "team", 0o664, days=20)
    t.f(
        "/srv/shared/releases/v1.9.0-notes.md",
        f"# Release v1.9.0\n\n{paragraph(rng, 4)}\n",
        "sam",
        "team",
        0o664,
        days=20,
    )
    t.f(
        "/srv/shared/releases/secrets.env",
        f"DEPLOY_TOKEN={token('deploy', rng.random())[:32]}\n",
        "sam",
        "team",
        0o660,
        days=20,
    )


def _others(t: Tree, rng: random.Random) -> None:
    t.d("/home/sam", "sam", mode=0o750)
    t.d("/root", mode=0o700)
    t.f(
        "/root/.bash_history",
        "apt update\napt upgrade -y\nsystemctl restart nginx\njournalctl -u nginx --since today\n",
        "root",
        mode=0o600,
        days=40,
    )
    t.f("/home/sam/.bashrc", "export EDITOR=vim\nalias ll='ls -alF'\n", "sam", days=300)
    t.f("/home/sam/salary-review.md", f"# Salary review (private)\n\n{paragraph(rng, 3)}\n", "sam", mode=0o600, days=40)
    for i in range(1, 9):
        t.f(
            f"/home/sam/deploy/run-{i:02d}.log",
            "\n".join(
                f"step {s}: {rng.choice(('ok', 'ok', 'ok', 'retry', 'failed'))}" for s in range(1, rng.randint(5, 12))
            )
            + "\n",
            "sam",
            days=90,
        )
    t.f("/home/sam/todo.txt", "\n".join(f"- {sentence(rng)}" for _ in range(6)) + "\n", "sam", days=10)
    t.d("/home/alex", "alex", mode=0o755)
    t.f("/home/alex/.bashrc", "export PATH=$HOME/bin:$PATH\nalias gs='git status'\n", "alex", days=300)
    t.f("/home/alex/diary.md", f"# Diary\n\n{paragraph(rng, 6)}\n", "alex", mode=0o600, days=5)
    t.f(
        "/home/alex/public/recommendations.md",
        "# Books I recommend\n\n"
        + "".join(
            f"- {rng.choice(WORDS).title()} {rng.choice(WORDS).title()} by {fake.full_name(rng)}\n" for _ in range(10)
        ),
        "alex",
        days=50,
    )
    t.f(
        "/home/alex/public/shared-calendar.csv",
        "date,event\n"
        + "".join(f"2026-06-{d:02d},{rng.choice(TOPICS)}\n" for d in sorted(rng.sample(range(1, 30), 8))),
        "alex",
        days=8,
    )
    t.f("/home/alex/bin/hello.sh", '#!/bin/sh\necho "hello from $(hostname)"\n', "alex", mode=0o755, days=100)
