"""Maya's projects and media in the seed: weather-cli and inventory-api sources with tests, the data pipeline
(config, sales CSVs, logs), the blog, shell scripts, pictures, music and downloads."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from hub.kit import fake
from servers.filesystem.formats import token
from servers.filesystem.seed_tree import Tree, paragraph, sentence
from servers.filesystem.seed_words import ALBUMS, BLOG, CAMERAS, FIELD_NAMES, PLAYLISTS, PRODUCTS, REGIONS

PY_FILES = {
    "__init__.py": '"""weather-cli: current conditions and forecasts in your terminal."""\n\n'
    '__version__ = "{version}"\n',
    "api.py": (
        '"""A thin client for the Open Weather API."""\n\nimport json\nimport urllib.request\n\nBASE_URL = "https://api.weather.example.com/v{api}"\n'
        'TIMEOUT = {timeout}\n\n\nclass WeatherError(Exception):\n    """The API answered with an error."""\n\n\n'
        'def fetch_current(city: str, units: str = "metric") -> dict:\n    """Current conditions for a city."""\n'
        '    url = f"{{BASE_URL}}/current?q={{city}}&units={{units}}"\n'
        "    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:\n"
        '        data = json.load(resp)\n    if "error" in data:\n        raise WeatherError(data["error"])\n'
        "    return data\n\n\n"
        'def fetch_forecast(city: str, days: int = 5) -> list[dict]:\n    """A daily forecast for the next days."""\n'
        '    # TODO: cache responses for 10 minutes\n    url = f"{{BASE_URL}}/forecast?q={{city}}&days={{days}}"\n'
        '    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:\n        return json.load(resp)["days"]\n'
    ),
    "cli.py": (
        '"""Command line entry point."""\n\nimport argparse\n\n'
        "from weather_cli.api import fetch_current, fetch_forecast\n"
        'from weather_cli.format import render_current, render_forecast\n\nDEFAULT_CITY = "{city}"\n\n\n'
        "def main() -> None:\n"
        '    parser = argparse.ArgumentParser(prog="weather")\n'
        '    parser.add_argument("city", nargs="?", default=DEFAULT_CITY)\n'
        '    parser.add_argument("--days", type=int, default=0)\n'
        '    parser.add_argument("--imperial", action="store_true")\n'
        '    args = parser.parse_args()\n    units = "imperial" if args.imperial else "metric"\n    if args.days:\n'
        "        print(render_forecast(fetch_forecast(args.city, args.days)))\n    else:\n"
        '        print(render_current(fetch_current(args.city, units)))\n\n\nif __name__ == "__main__":\n    main()\n'
    ),
    "format.py": (
        '"""Pretty printing of API responses."""\n\n'
        'ICONS = {{"clear": "sun", "rain": "umbrella", "snow": "snowflake", "clouds": "cloud"}}\n\n\n'
        'def render_current(data: dict) -> str:\n    icon = ICONS.get(data["condition"], "?")\n'
        "    return f\"{{data['city']}}: {{data['temp']:.0f}} deg, {{data['condition']}} ({{icon}})\"\n\n\n"
        "def render_forecast(days: list[dict]) -> str:\n    # TODO: align columns\n"
        "    return \"\\n\".join(f\"{{d['date']}}  {{d['min']:>3.0f}} / {{d['max']:>3.0f}}  {{d['condition']}}\" for "
        "d in days)\n"
    ),
    "cache.py": (
        '"""A tiny on-disk cache."""\n\nimport json\nimport time\nfrom pathlib import Path\n\n'
        'CACHE_DIR = Path.home() / ".cache" / "weather-cli"\n'
        'TTL_SECONDS = {ttl}\n\n\ndef get(key: str):\n    path = CACHE_DIR / f"{{key}}.json"\n'
        "    if not path.exists() or time.time() - path.stat().st_mtime > TTL_SECONDS:\n        return None\n"
        "    return json.loads(path.read_text())\n\n\ndef put(key: str, value) -> None:\n"
        "    CACHE_DIR.mkdir(parents=True, exist_ok=True)\n"
        '    (CACHE_DIR / f"{{key}}.json").write_text(json.dumps(value))\n'
    ),
}


def _projects(t: Tree, rng: random.Random, now: datetime, p: str) -> None:
    """Maya's projects: a Python CLI, a Node API, a data pipeline with logs, a blog and shell scripts."""
    version = _weather_cli(t, rng, f"{p}/weather-cli")
    _weather_cli_tests(t, rng, f"{p}/weather-cli", version)
    _inventory_api(t, rng, f"{p}/inventory-api")
    _data_pipeline(t, rng, f"{p}/data-pipeline")
    _sales(t, rng, f"{p}/data-pipeline")
    _pipeline_logs(t, rng, now, f"{p}/data-pipeline")
    _blog(t, rng, now, f"{p}/blog")
    _scripts(t, f"{p}/scripts")


def _weather_cli(t: Tree, rng: random.Random, w: str) -> str:
    """A small Python package; returns its version, which the changelog counts up to."""
    version = f"0.{rng.randint(2, 9)}.{rng.randint(0, 5)}"
    subs = {
        "version": version,
        "api": rng.choice((2, 3)),
        "timeout": rng.choice((5, 10, 15)),
        "city": rng.choice(fake.CITIES)[0],
        "ttl": rng.choice((300, 600, 900)),
    }
    for name, tmpl in PY_FILES.items():
        t.f(f"{w}/src/weather_cli/{name}", tmpl.format(**subs), days=60)
    t.f(
        f"{w}/README.md",
        f"# weather-cli {version}\n\nCurrent conditions and forecasts in your terminal.\n\n## Install\n\n"
        "    pip install -e .\n\n## Usage\n\n    weather Seattle\n    weather Denver --days 5 --imperial\n\n"
        "## License\nMIT\n",
        days=30,
    )
    t.f(
        f"{w}/pyproject.toml",
        f'[project]\nname = "weather-cli"\nversion = "{version}"\nrequires-python = ">=3.10"\n'
        'dependencies = []\n\n[project.scripts]\nweather = "weather_cli.cli:main"\n',
        days=30,
    )
    t.f(f"{w}/requirements-dev.txt", "pytest==8.2.0\nruff==0.4.4\nmypy==1.10.0\n", days=90)
    t.f(f"{w}/.gitignore", "__pycache__/\n*.pyc\n.venv/\ndist/\n.cache/\n", days=200)
    t.f(
        f"{w}/LICENSE",
        "MIT License\n\nCopyright (c) 2025 Maya Lindqvist\n\n"
        "Permission is hereby granted, free of charge, to any person "
        "obtaining a copy of this software, to deal in the Software without restriction.\n",
        days=400,
    )
    return version


def _weather_cli_tests(t: Tree, rng: random.Random, w: str, version: str) -> None:
    """Its tests (one skipped: it needs the network) and a changelog of every minor release."""
    t.f(
        f"{w}/tests/test_format.py",
        "from weather_cli.format import render_current\n\n\ndef test_render_current():\n"
        "    out = render_current({'city': 'Oslo', 'temp': 3.4, 'condition': 'snow'})\n"
        "    assert out == 'Oslo: 3 deg, snow (snowflake)'\n",
        days=20,
    )
    t.f(
        f"{w}/tests/test_api.py",
        "import pytest\n\nfrom weather_cli import api\n\n\ndef test_base_url():\n"
        "    assert api.BASE_URL.startswith('https://')\n\n\n@pytest.mark.skip(reason='needs network')\n"
        "def test_fetch_current():\n"
        "    assert api.fetch_current('Oslo')['city'] == 'Oslo'\n",
        days=20,
    )
    t.f(
        f"{w}/CHANGELOG.md",
        "# Changelog\n\n" + "".join(f"## 0.{m}.0\n- {sentence(rng)}\n\n" for m in range(int(version[2]), 0, -1)),
        days=30,
    )


def _inventory_api(t: Tree, rng: random.Random, a: str) -> None:
    """An Express REST API with a route, model and test per resource and a private .env."""
    port = rng.choice((3000, 3001, 8080))
    t.f(
        f"{a}/package.json",
        '{\n  "name": "inventory-api",\n  "version": "1.%d.0",\n  "main": "src/index.js",\n  "scripts": {\n'
        '    "start": "node src/index.js",\n    "test": "jest"\n  },\n  "dependencies": {\n    "express": "^4.19.2",\n'
        '    "pg": "^8.11.5"\n'
        '  },\n  "devDependencies": {\n    "jest": "^29.7.0"\n  }\n}\n' % rng.randint(1, 9),
        days=45,
    )
    t.f(
        f"{a}/src/index.js",
        "const express = require('express');\nconst items = require('./routes/items');\n"
        "const orders = require('./routes/orders');\n"
        "const suppliers = require('./routes/suppliers');\n\nconst app = express();\napp.use(express.json());\n"
        "app.use('/api/items', items);\n"
        f"app.use('/api/orders', orders);\napp.use('/api/suppliers', suppliers);\n"
        f"app.get('/health', (req, res) => res.json({{ ok: true }}));\n\n"
        f"const PORT = process.env.PORT || {port};\n"
        f"app.listen(PORT, () => console.log(`inventory-api listening on ${{PORT}}`));\n",
        days=25,
    )
    t.f(
        f"{a}/src/db.js",
        "const { Pool } = require('pg');\n\nconst pool = new Pool({ connectionString: process.env.DATABASE_URL });\n\n"
        "module.exports = { query: (text, params) => pool.query(text, params) };\n",
        days=90,
    )
    for res in ("items", "orders", "suppliers"):
        _inventory_resource(t, rng, a, res)
    t.f(
        f"{a}/.env",
        f"DATABASE_URL=postgres://inventory:{token('pw', rng.random())[:16]}@db.internal:5432/inventory\nPORT={port}\n",
        mode=0o600,
        days=45,
    )
    t.f(
        f"{a}/README.md",
        f"# inventory-api\n\nREST API for the warehouse inventory. Runs on port {port} behind nginx.\n\n"
        "## Endpoints\n\n- GET /api/items\n- GET /api/orders\n- GET /api/suppliers\n- GET /health\n",
        days=45,
    )


def _inventory_resource(t: Tree, rng: random.Random, a: str, res: str) -> None:
    """The route, model and test of one REST resource of the inventory API."""
    t.f(
        f"{a}/src/routes/{res}.js",
        f"const express = require('express');\nconst db = require('../db');\n\nconst router = express.Router();\n\n"
        f"router.get('/', async (req, res) => {{\n  const page = Number(req.query.page || 1);\n"
        f"  const {{ rows }} = await db.query('SELECT * FROM {res} ORDER BY id LIMIT 50 OFFSET $1', [(page - 1) * "
        f"50]);\n  res.json(rows);\n}});\n\n"
        f"router.get('/:id', async (req, res) => {{\n"
        f"  const {{ rows }} = await db.query('SELECT * FROM {res} WHERE id = $1', [req.params.id]);\n"
        f"  if (!rows.length) return res.status(404).json({{ error: '{res[:-1]} not found' }});\n"
        f"  res.json(rows[0]);\n}});\n\n"
        + ("// TODO: validate quantities before insert\n" if res != "suppliers" else "")
        + "module.exports = router;\n",
        days=rng.randint(5, 60),
    )
    t.f(
        f"{a}/src/models/{res[:-1]}.js",
        f"// {res[:-1]} model\nmodule.exports = {{\n  table: '{res}',\n  fields: "
        f"{sorted(rng.sample(FIELD_NAMES, 5))},\n}};\n",
        days=80,
    )
    t.f(
        f"{a}/test/{res}.test.js",
        f"const request = require('supertest');\n\ndescribe('{res}', () => {{\n  it('lists {res}', async () => {{\n"
        f"    expect(true).toBe(true);\n  }});\n}});\n",
        days=70,
    )


def _data_pipeline(t: Tree, rng: random.Random, dp: str) -> None:
    """The nightly ETL script and its config."""
    t.f(
        f"{dp}/etl.py",
        '"""Nightly ETL: read the sales CSVs, clean them and load a summary."""\n\nimport csv\nimport logging\n'
        'from pathlib import Path\n\nlog = logging.getLogger("etl")\nDATA = Path(__file__).parent / "data"\n\n\n'
        "def extract(name: str) -> list[dict]:\n    with open(DATA / name) as fh:\n"
        "        rows = list(csv.DictReader(fh))\n"
        '    log.info("loaded %d rows from %s", len(rows), name)\n    return rows\n\n\n'
        "def transform(rows: list[dict]) -> dict[str, float]:\n    totals: dict[str, float] = {}\n    for r in rows:\n"
        '        totals[r["region"]] = totals.get(r["region"], 0.0) + float(r["total"])\n    return totals\n\n\n'
        'if __name__ == "__main__":\n    for f in sorted(DATA.glob("sales_*.csv")):\n'
        "        print(f.name, transform(extract(f.name)))\n",
        days=35,
    )
    t.f(
        f"{dp}/config.yaml",
        f'source_dir: data\nschedule: "0 2 * * *"\nwarehouse:\n  host: db.internal\n  port: 5432\n'
        f"  database: analytics\nretention_days: {rng.choice((30, 60, 90))}\nnotify: maya.lindqvist@example.com\n",
        days=35,
    )


def _sales(t: Tree, rng: random.Random, dp: str) -> None:
    """Five quarters of sales CSVs with increasing order ids, and the regions table."""
    order = 1000
    for year, q, back in ((2025, 1, 400), (2025, 2, 310), (2025, 3, 220), (2025, 4, 130), (2026, 1, 40)):
        sales = ["order_id,date,region,product,quantity,unit_price,total"]
        for _ in range(rng.randint(60, 110)):
            order += rng.randint(1, 7)
            product, price = rng.choice(PRODUCTS)
            qty = rng.randint(1, 12)
            month = (q - 1) * 3 + rng.randint(1, 3)
            sales.append(
                f"ORD-{order},{year}-{month:02d}-{rng.randint(1, 28):02d},{rng.choice(REGIONS)},"
                f"{product},{qty},{price:.2f},{qty * price:.2f}"
            )
        t.f(f"{dp}/data/sales_{year}_q{q}.csv", "\n".join(sales) + "\n", days=back, hours=back * 24 - 48)
    t.f(
        f"{dp}/data/regions.csv",
        "region,manager,target\n"
        + "".join(f"{r},{fake.full_name(rng)},{rng.randint(50, 200) * 1000}\n" for r in REGIONS),
        days=200,
    )


def _pipeline_logs(t: Tree, rng: random.Random, now: datetime, dp: str) -> None:
    """Two weeks of nightly ETL logs, a quarter of them with a database timeout."""
    for back in range(1, 15):
        day = now - timedelta(days=back)
        stamp = day.strftime("%Y-%m-%d")
        lines = [f"{stamp} 02:00:0{rng.randint(0, 9)},{rng.randint(100, 999)} INFO etl: run started"]
        for part in ("2025_q3", "2025_q4", "2026_q1"):
            lines.append(
                f"{stamp} 02:00:{rng.randint(10, 40)},{rng.randint(100, 999)} INFO etl.extract: loaded "
                f"{rng.randint(60, 110)} rows from sales_{part}.csv"
            )
        if rng.random() < 0.25:
            lines.append(
                f"{stamp} 02:01:{rng.randint(10, 59)},{rng.randint(100, 999)} ERROR etl.load: connection to "
                f"db.internal:5432 timed out"
            )
            lines.append(
                f"{stamp} 02:02:0{rng.randint(0, 9)},{rng.randint(100, 999)} WARNING etl: retrying in 60 seconds"
            )
        lines.append(f"{stamp} 02:03:{rng.randint(10, 59)},{rng.randint(100, 999)} INFO etl: run finished")
        t.f(f"{dp}/logs/etl-{stamp}.log", "\n".join(lines) + "\n", mtime=f"{stamp}T02:0{rng.randint(3, 9)}:00")


def _blog(t: Tree, rng: random.Random, now: datetime, b: str) -> None:
    """A Jekyll blog: published posts about five weeks apart, the newest still a draft."""
    t.f(f"{b}/_config.yml", "title: Notes from Maya\nauthor: Maya Lindqvist\nbaseurl: /blog\ntheme: minima\n", days=300)
    for i, (slug, title) in enumerate(BLOG):
        date = (now - timedelta(days=20 + i * 37 + rng.randint(0, 20))).date()
        tags = ", ".join(rng.sample(("python", "travel", "food", "linux", "career", "books", "data", "rust"), 2))
        body = "\n\n".join(paragraph(rng, rng.randint(3, 6)) for _ in range(rng.randint(3, 6)))
        draft = i == 0
        path = f"{b}/{'drafts' if draft else 'posts'}/{date.isoformat()}-{slug}.md"
        t.f(
            path,
            f'---\ntitle: "{title}"\ndate: {date.isoformat()}\ntags: [{tags}]\n---\n\n{body}\n',
            mtime=fake.iso(datetime.combine(date, datetime.min.time()) + timedelta(hours=21)),
        )


def _scripts(t: Tree, s: str) -> None:
    """Maya's backup, cleanup and photo-renaming scripts."""
    t.f(
        f"{s}/backup.sh",
        "#!/bin/sh\n# Nightly backup of documents\nset -e\nDEST=$HOME/backups\nSTAMP=$(date +%Y-%m)\n"
        'tar czf "$DEST/notes-$STAMP.tar.gz" -C "$HOME/Documents" notes\necho "backup done: $STAMP"\n',
        mode=0o755,
        days=100,
    )
    t.f(
        f"{s}/cleanup.sh",
        "#!/bin/sh\n# Remove logs older than 30 days\n"
        "find $HOME/projects/data-pipeline/logs -name '*.log' -mtime +30 -delete\n",
        mode=0o755,
        days=100,
    )
    t.f(
        f"{s}/rename_photos.py",
        "import sys\nfrom pathlib import Path\n\nfor i, p in enumerate(sorted(Path(sys.argv[1]).glob('*.jpg')), 1):\n"
        "    p.rename(p.with_name(f'IMG_{i:04d}.jpg'))\n",
        days=200,
    )


def _media(t: Tree, rng: random.Random, h: str) -> None:
    index = ["file,album,taken_at,camera,width,height,location"]
    n = 4000
    for album, place, prefix in ALBUMS:
        camera = rng.choice(CAMERAS)
        for _ in range(rng.randint(10, 18)):
            n += rng.randint(1, 9)
            taken = f"{prefix}{rng.randint(1, 28):02d}T{rng.randint(7, 20):02d}:{rng.randint(0, 59):02d}:00"
            w, hh = rng.choice(((6240, 4160), (4032, 3024), (3024, 4032)))
            t.b(f"{h}/Pictures/{album}/IMG_{n}.jpg", rng.randint(1_800_000, 6_500_000), mtime=taken)
            index.append(f"IMG_{n}.jpg,{album},{taken},{camera},{w},{hh},{place}")
        t.f(f"{h}/Pictures/{album}/README.md", f"# {album}\n\nTaken in {place} with a {camera}.\n", days=100)
    for i in range(1, rng.randint(6, 10)):
        t.b(f"{h}/Pictures/screenshots/screenshot-2026-05-{i + 10:02d}.png", rng.randint(80_000, 900_000), days=25)
    t.f(f"{h}/Pictures/photos-index.csv", "\n".join(index) + "\n", days=10)
    for name, songs in PLAYLISTS:
        t.f(
            f"{h}/Music/playlists/{name}.m3u",
            "#EXTM3U\n"
            + "".join(
                f"#EXTINF:{rng.randint(150, 420)},{song}\n{song.lower().replace(' ', '_')}.mp3\n" for song in songs
            ),
            days=150,
        )
    for name, size in (
        ("invoice-2026-04.pdf", 84_211),
        ("invoice-2026-05.pdf", 86_934),
        ("lease-agreement.pdf", 412_558),
        ("boarding-pass-LIS.pdf", 120_004),
    ):
        t.b(f"{h}/Downloads/{name}", size + rng.randint(0, 5000), days=60)
    t.f(
        f"{h}/Downloads/exchange-rates.csv",
        "date,usd_eur,usd_sek\n"
        + "".join(
            f"2026-05-{d:02d},{rng.uniform(0.88, 0.94):.4f},{rng.uniform(9.9, 10.8):.4f}\n" for d in range(1, 29)
        ),
        days=4,
    )
    t.f(f"{h}/Downloads/meeting-notes-copy.md", f"# Copy of notes\n\n{paragraph(rng, 3)}\n", days=9)
