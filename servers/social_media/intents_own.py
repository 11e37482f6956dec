"""A user's own posts on the social network: sharing something new, taking an old post down. Openers that also
continue a dialogue of the same person (see ``intents``)."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import POST_TEXTS, POSTS, ask, find_own_post, me, own_post_ref, remember_post
from servers.social_media.tools import social_media

# Own posts -----------------------------------------------------------------------------------------


@social_media.intent(covers=("search_users", "create_post", "get_post", "delete_post"), weight=1.5, follows=True)
def share(s: Scene) -> None:
    """A user shares something new, then checks it or takes it back down."""
    u = me(s)
    text = s.rng.choice(POST_TEXTS)
    if s.rows("SELECT 1 FROM posts WHERE author_id = ? AND content = ?", u["user_id"], text):
        raise Skip("posted already")
    body = s.given(text, f'"{text}"', "text", "create_post", "content")
    uid = ask(
        s,
        u,
        "{me}Put this up on my profile[: {body}].",
        "{me}Share this for me[: {body}].",
        "{me}Publish a new update[: {body}].",
        "{me}{Can you|Could you} post this {for me|on my account}[: {body}]?",
        "{me}I want to {tell everyone|let my followers know} something[: {body}].",
        "{me}New post, please[: {body}].",
        minimal=["{me}I have something to share[: {body}]."],
        body=body,
    )
    out = s.call("create_post", author_id=uid, content=body)
    remember_post(s, out)
    s.memory["mine"] = out["post_id"]
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    if s.rng.random() < 0.5:
        s.say(
            "Hmm, I posted that too soon. Take it down.",
            "On second thought, {remove|delete} it.",
            "Actually, I regret that one, pull it.",
            "{Ugh|Hmm}, that {wasn't a good idea|came out wrong}; {delete|remove} it {now|right away}.",
        )
        s.call("delete_post", user_id=uid, post_id=out["post_id"])
        s.memory.pop("post", None)
    else:
        s.say(
            "Did the hashtags get picked up? Show me the post.",
            "Let me see how it looks {now|on my profile}.",
            "{Pull|Bring} it up so I can check it.",
            "{Did it go up|Is it live} {alright|okay}? {Show me|Let me see} it.",
        )
        s.call("get_post", post_id=out["post_id"], viewer_id=uid)


@social_media.intent(covers=("search_users", "list_posts", "get_user", "delete_post"), follows=True)
def remove_old_post(s: Scene) -> None:
    """A user deletes an older post of theirs (named by its words, or their latest)."""
    u = me(s, "user_id IN (SELECT author_id FROM posts)")
    p = s.pick(POSTS + " WHERE p.author_id = ?", u["user_id"])
    if s.memory.get("post", {}).get("post_id") == p["post_id"]:
        raise Skip("the post of this dialogue")
    latest = s.rng.random() < 0.4
    what = own_post_ref(s, u, p, latest, dated=True)
    uid = ask(
        s,
        u,
        "{me}Delete {what}, I don't want it up anymore.",
        "{me}Please get rid of {what}.",
        "{me}Take {what} off my profile.",
        minimal=["{me}I regret {what}."],
        what=what,
    )
    if latest and s.rng.random() < 0.5:
        ids = s.call("get_user", user_id=uid)["latest_post_ids"]
        if not ids or ids[0] != p["post_id"]:
            raise Skip("not the latest")
        pid = ids[0]
    else:
        pid = find_own_post(s, p, uid, latest)["post_id"]
    s.call("delete_post", user_id=uid, post_id=pid)
    s.memory.pop("post", None)
