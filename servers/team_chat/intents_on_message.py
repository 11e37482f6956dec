"""Short follow-ups on the message of a team chat dialogue, or on what the member just posted or reacted with:
react to it, take the reaction back, reply under it, reword one's own post."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.team_chat.intents import EMOJI_WORDS, WORDS, member, reacted
from servers.team_chat.intents_followups import message, their
from servers.team_chat.tools import chat


@chat.intent(covers=("add_reaction",), follows=True, opens=False, weight=1.2)
def react_to_it(s: Scene) -> None:
    """An emoji on the message the dialogue is about."""
    u, m = member(s), message(s)
    if m["author_id"] == u["user_id"]:
        raise Skip("one's own message")
    emoji = s.rng.choice(list(EMOJI_WORDS))
    if reacted(s, m["message_id"], u["user_id"], emoji):
        raise Skip("already reacted")
    s.say(WORDS.react_to_it, e=EMOJI_WORDS[emoji], it=their(m, u))
    args = {"message_id": m["message_id"], "user_id": u["user_id"], "emoji": emoji}
    s.call("add_reaction", **args)
    s.memory["reacted"] = args


@chat.intent(covers=("add_reaction",), follows=True, opens=False, weight=0.8)
def take_reaction_back(s: Scene) -> None:
    """The member changes their mind about the reaction they just added."""
    args = s.known("reacted", "no reaction in the dialogue")
    if not reacted(s, args["message_id"], args["user_id"], args["emoji"]):
        raise Skip("the reaction is gone")
    s.say(WORDS.take_reaction_back, e=EMOJI_WORDS[args["emoji"]].removeprefix("a ").removeprefix("the "))
    s.call("add_reaction", **args, remove=True)
    s.memory.pop("reacted")


@chat.intent(covers=("post_message",), follows=True, opens=False, weight=1.2)
def reply_to_it(s: Scene) -> None:
    """A reply in the thread of the message the dialogue is about."""
    u, m = member(s), message(s)
    text = s.rng.choice(WORDS.reply_texts)
    s.say(WORDS.reply_to_it, it=their(m, u), t=text)
    s.memory["posted"] = s.call(
        "post_message", channel_id=m["channel_id"], author_id=u["user_id"], text=text, thread_id=m["message_id"]
    )


# On what the member posted ----------------------------------------------------------------------


@chat.intent(covers=("edit_message",), follows=True, opens=False)
def fix_what_i_posted(s: Scene) -> None:
    """The member rewords what they just posted."""
    posted = s.known("posted", "nothing posted in the dialogue")
    now = s.rows(
        "SELECT m.text FROM messages m JOIN channels c USING (channel_id) WHERE m.message_id = ? AND c.is_archived = 0",
        posted["message_id"],
    )
    if not now or now[0]["text"] != posted["text"]:
        raise Skip("the post cannot be edited, or was edited already")
    text = posted["text"].rstrip(".!?") + s.rng.choice(
        (" (edited: see the doc)", ", thanks!", " - will confirm by EOD.")
    )
    if text == posted["text"]:
        raise Skip("the same text")
    s.say(WORDS.fix_what_i_posted, t=text)
    s.call("edit_message", message_id=posted["message_id"], user_id=posted["author_id"], text=text)
