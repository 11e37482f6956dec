"""SQLite state: seed databases, forks, sessions, the library of mounted servers."""
