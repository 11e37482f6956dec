"""CRM tables: owners own accounts, contacts, leads and deals; deals keep a stage history; activities log the work."""

SCHEMA = """
CREATE TABLE owners (
    owner_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    team TEXT NOT NULL,
    region TEXT NOT NULL,
    quota REAL NOT NULL,
    active INTEGER NOT NULL
);
CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    industry TEXT NOT NULL,
    city TEXT NOT NULL,
    employees INTEGER NOT NULL,
    annual_revenue REAL NOT NULL,
    website TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    created_at TEXT NOT NULL
);
CREATE TABLE contacts (
    contact_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    title TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    created_at TEXT NOT NULL
);
CREATE INDEX contacts_account ON contacts(account_id);
CREATE TABLE leads (
    lead_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    company TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('new', 'working', 'qualified', 'disqualified', 'converted')),
    disqualify_reason TEXT,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    converted_account_id TEXT,
    converted_contact_id TEXT,
    converted_deal_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE deals (
    deal_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    contact_id TEXT REFERENCES contacts(contact_id),
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    amount REAL NOT NULL,
    stage TEXT NOT NULL CHECK (
        stage IN ('prospecting', 'qualification', 'proposal', 'negotiation', 'closed_won', 'closed_lost')
    ),
    probability INTEGER NOT NULL,
    expected_close TEXT NOT NULL,
    lost_reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    closed_at TEXT
);
CREATE INDEX deals_account ON deals(account_id);
CREATE INDEX deals_stage ON deals(stage, owner_id);
CREATE TABLE stage_history (
    history_id TEXT PRIMARY KEY,
    deal_id TEXT NOT NULL REFERENCES deals(deal_id),
    from_stage TEXT,
    to_stage TEXT NOT NULL,
    changed_at TEXT NOT NULL
);
CREATE INDEX stage_history_deal ON stage_history(deal_id);
CREATE TABLE activities (
    activity_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('call', 'email', 'meeting', 'note', 'task')),
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    deal_id TEXT,
    contact_id TEXT,
    lead_id TEXT,
    due_at TEXT,
    completed INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX activities_deal ON activities(deal_id);
CREATE INDEX activities_contact ON activities(contact_id);
CREATE INDEX activities_lead ON activities(lead_id);
"""

STAGES = ("prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost")
OPEN_STAGES = STAGES[:4]
PROBABILITY = {
    "prospecting": 10,
    "qualification": 25,
    "proposal": 50,
    "negotiation": 75,
    "closed_won": 100,
    "closed_lost": 0,
}
ALLOWED = {
    "prospecting": ("qualification", "closed_lost"),
    "qualification": ("proposal", "prospecting", "closed_lost"),
    "proposal": ("negotiation", "qualification", "closed_lost"),
    "negotiation": ("closed_won", "proposal", "closed_lost"),
    "closed_won": (),
    "closed_lost": (),
}
LEAD_ALLOWED = {
    "new": ("working", "qualified", "disqualified"),
    "working": ("qualified", "disqualified"),
    "qualified": ("working", "disqualified"),
    "disqualified": ("working",),
    "converted": (),
}
