"""The calendar SQLite schema and the domain constants seed and tools share."""

from __future__ import annotations

from datetime import timedelta

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    department TEXT NOT NULL,
    title TEXT NOT NULL,
    office TEXT NOT NULL
);
CREATE TABLE calendars (
    calendar_id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES users(user_id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('primary', 'personal', 'team')),
    color TEXT NOT NULL
);
CREATE INDEX calendars_owner ON calendars(owner_id);
CREATE TABLE events (
    event_id TEXT PRIMARY KEY,
    calendar_id TEXT NOT NULL REFERENCES calendars(calendar_id),
    organizer_id TEXT NOT NULL REFERENCES users(user_id),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    location TEXT NOT NULL,
    start TEXT NOT NULL,
    end TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('confirmed', 'tentative', 'cancelled')),
    cancel_reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX events_organizer ON events(organizer_id);
CREATE TABLE invitees (
    event_id TEXT NOT NULL REFERENCES events(event_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    response TEXT NOT NULL CHECK (response IN ('needs_action', 'accepted', 'declined', 'tentative')),
    optional INTEGER NOT NULL DEFAULT 0,
    responded_at TEXT,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX invitees_user ON invitees(user_id);
CREATE TABLE recurrences (
    rule_id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE REFERENCES events(event_id),
    freq TEXT NOT NULL CHECK (freq IN ('daily', 'weekly', 'monthly')),
    interval INTEGER NOT NULL CHECK (interval >= 1),
    by_weekday TEXT,
    count INTEGER,
    until TEXT
);
CREATE TABLE cancelled_occurrences (
    event_id TEXT NOT NULL REFERENCES events(event_id),
    occurrence_date TEXT NOT NULL,
    cancelled_at TEXT NOT NULL,
    PRIMARY KEY (event_id, occurrence_date)
);
"""

DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Legal", "Support")
JOB_TITLES = {
    "Engineering": ("Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager", "SRE"),
    "Sales": ("Account Executive", "Sales Development Rep", "Sales Manager", "Solutions Engineer"),
    "Marketing": ("Content Strategist", "Growth Marketer", "Marketing Manager", "Brand Designer"),
    "Finance": ("Financial Analyst", "Controller", "Accountant", "FP&A Manager"),
    "People Ops": ("Recruiter", "HR Business Partner", "People Ops Manager"),
    "Product": ("Product Manager", "Senior Product Manager", "Product Analyst"),
    "Design": ("Product Designer", "UX Researcher", "Design Lead"),
    "Legal": ("Counsel", "Paralegal", "Contracts Manager"),
    "Support": ("Support Specialist", "Support Lead", "Customer Success Manager"),
}
OFFICES = ("Seattle HQ", "Austin", "New York", "Remote", "Denver", "Boston")
ROOMS = ("Room 2A - Rainier", "Room 2B - Olympus", "Room 3A - Baker", "Room 3C - Shasta", "Room 4A - Hood",
         "Boardroom", "Cafe Commons", "Focus Pod 7", "Training Room 1")
VIDEO = ("Zoom", "Google Meet", "Microsoft Teams")
COLORS = ("blue", "green", "red", "purple", "orange", "teal", "gray", "yellow")
WORK_TOPICS = ("Sprint planning", "Design review", "Roadmap sync", "Pipeline review", "Budget check-in", "Incident postmortem",
               "Hiring debrief", "Quarterly business review", "Architecture deep dive", "Launch readiness", "Customer onboarding",
               "Vendor evaluation", "Performance calibration", "Content calendar review", "Contract review", "Demo prep",
               "Onboarding session", "Security training", "Data migration sync", "OKR planning")
TEAM_SERIES = (("Daily standup", "daily", 15), ("Weekly team sync", "weekly", 60), ("Backlog grooming", "weekly", 60),
               ("Monthly all-hands", "monthly", 60), ("Retro", "weekly", 45), ("Office hours", "weekly", 30))
PERSONAL = (("Dentist appointment", 60), ("Gym", 60), ("Pick up kids", 30), ("Doctor's visit", 45), ("Yoga class", 60),
            ("Car service", 90), ("Haircut", 30), ("Parent-teacher conference", 45), ("Lunch with friends", 90),
            ("Piano lesson", 45))
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
MAX_SERIES_SPAN = timedelta(days=731)
MAX_EVENT_SPAN = timedelta(days=7)
MAX_INVITEES = 50
