"""Email: mailboxes, contacts, folders, threads, labels and drafts for a company's mail system.

Every mailbox has four folders (inbox, archive, trash, sent), its own labels and contacts.
Messages belong to a thread (a conversation); a message sent to another mailbox of this system
is delivered into that mailbox's inbox as a copy on the same thread. Times are fixed: "now" is
the world's reference time (2026-06-01T09:00 in the default world).

Business rules: sent mail is append-only (a sent message is never edited, moved or deleted, it
can only be starred or labelled); only inbox messages can be trashed or archived, and trashed or
archived mail goes back through the inbox; a draft needs at least one 'to' recipient and a
subject to be sent, and sending consumes the draft; labels must exist in the mailbox before use
(names are unique, case-insensitively, and the folder names are reserved); messages in the trash
take no labels; a contact's address is unique within a mailbox.
"""

from servers.email import intents_followups, intents_reading, intents_writing, tools_write  # noqa: F401  (registers the tools and intents)
from servers.email.tools import email as server

__all__ = ["server"]
