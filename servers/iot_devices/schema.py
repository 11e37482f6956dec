"""Smart home schema and the device vocabulary (rooms, makers, colours, scenes) the seed and the tools share."""

from __future__ import annotations

from typing import Literal

SCHEMA = """
CREATE TABLE homes (
    home_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    owner_name TEXT NOT NULL,
    address TEXT NOT NULL,
    city TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE rooms (
    room_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL,
    floor INTEGER NOT NULL,
    UNIQUE (home_id, name)
);
CREATE TABLE devices (
    device_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    room_id TEXT NOT NULL REFERENCES rooms(room_id),
    name TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('light', 'thermostat', 'lock', 'blind', 'plug', 'camera', 'speaker')),
    manufacturer TEXT NOT NULL,
    firmware TEXT NOT NULL,
    online INTEGER NOT NULL,
    battery INTEGER,
    power TEXT CHECK (power IN ('on', 'off')),
    brightness INTEGER,
    supports_color INTEGER NOT NULL DEFAULT 0,
    color TEXT,
    mode TEXT CHECK (mode IN ('heat', 'cool', 'auto', 'eco', 'off')),
    current_temp REAL,
    target_temp REAL,
    min_temp REAL,
    max_temp REAL,
    lock_state TEXT CHECK (lock_state IN ('locked', 'unlocked', 'jammed')),
    position INTEGER,
    volume INTEGER,
    updated_at TEXT NOT NULL
);
CREATE INDEX devices_home ON devices(home_id, room_id);
CREATE TABLE sensors (
    sensor_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    room_id TEXT NOT NULL REFERENCES rooms(room_id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('temperature', 'humidity', 'motion', 'door_contact')),
    unit TEXT NOT NULL,
    online INTEGER NOT NULL,
    battery INTEGER NOT NULL,
    last_value REAL,
    last_reading_at TEXT
);
CREATE TABLE readings (
    reading_id TEXT PRIMARY KEY,
    sensor_id TEXT NOT NULL REFERENCES sensors(sensor_id),
    value REAL NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX readings_sensor ON readings(sensor_id, recorded_at);
CREATE TABLE scenes (
    scene_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_activated_at TEXT,
    UNIQUE (home_id, name)
);
CREATE TABLE scene_actions (
    scene_id TEXT NOT NULL REFERENCES scenes(scene_id),
    device_id TEXT NOT NULL,
    power TEXT,
    brightness INTEGER,
    color TEXT,
    mode TEXT,
    target_temp REAL,
    lock_state TEXT,
    position INTEGER,
    PRIMARY KEY (scene_id, device_id)
);
CREATE TABLE automations (
    automation_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('time', 'sensor')),
    at_time TEXT,
    days TEXT,
    sensor_id TEXT,
    condition TEXT,
    threshold REAL,
    scene_id TEXT NOT NULL REFERENCES scenes(scene_id),
    enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    last_triggered_at TEXT
);
CREATE TABLE device_groups (
    group_id TEXT PRIMARY KEY,
    home_id TEXT NOT NULL REFERENCES homes(home_id),
    name TEXT NOT NULL
);
CREATE TABLE group_members (
    group_id TEXT NOT NULL REFERENCES device_groups(group_id),
    device_id TEXT NOT NULL,
    PRIMARY KEY (group_id, device_id)
);
"""

ROOMS = (
    ("Living Room", 0),
    ("Kitchen", 0),
    ("Dining Room", 0),
    ("Entryway", 0),
    ("Garage", 0),
    ("Hallway", 0),
    ("Master Bedroom", 1),
    ("Bedroom 2", 1),
    ("Nursery", 1),
    ("Bathroom", 1),
    ("Office", 1),
    ("Patio", 0),
    ("Basement", -1),
    ("Laundry Room", -1),
)
MAKERS = {
    "light": ("Philips Hue", "LIFX", "Nanoleaf", "Sengled", "IKEA Tradfri"),
    "thermostat": ("Nest", "Ecobee", "Honeywell Home"),
    "lock": ("August", "Yale", "Schlage"),
    "blind": ("Lutron", "IKEA Fyrtur", "Somfy"),
    "plug": ("TP-Link Kasa", "Wemo", "Eve Energy"),
    "camera": ("Arlo", "Ring", "Wyze", "Eufy"),
    "speaker": ("Sonos", "Amazon Echo", "Google Nest Audio"),
}
LABELS = {
    "light": ("Ceiling Light", "Lamp", "Pendant", "Strip Light", "Spotlights"),
    "thermostat": ("Thermostat",),
    "lock": ("Door Lock",),
    "blind": ("Blinds", "Shades"),
    "plug": ("Smart Plug", "Fan Plug", "Heater Plug"),
    "camera": ("Camera",),
    "speaker": ("Speaker",),
}
COLORS = ("warm white", "cool white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink")
HOME_NAMES = ("Residence", "House", "Cottage", "Apartment", "Townhouse", "Loft", "Bungalow")
SCENES = ("Good Morning", "Movie Night", "Away", "Bedtime", "Dinner", "Welcome Home", "Reading", "Party")
GROUPS = ("All Lights", "Downstairs Lights", "Upstairs Lights", "Plugs")
UNITS = {"temperature": "C", "humidity": "%", "motion": "detected", "door_contact": "open"}
DeviceType = Literal["light", "thermostat", "lock", "blind", "plug", "camera", "speaker"]
Color = Literal["warm white", "cool white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink"]
SWITCHABLE = ("light", "plug", "speaker", "camera")
