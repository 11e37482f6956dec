"""A user's own posts on the social network: sharing something new, taking an old post down. Openers that also
continue a dialogue of the same person (see ``intents``)."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import POSTS, WORDS, ask, find_own_post, me, own_post_ref, remember_post
from servers.social_media.tools import social_media

# Own posts -----------------------------------------------------------------------------------------


@social_media.intent(covers=("search_users", "create_post", "get_post", "delete_post"), weight=1.5, follows=True)
def share(s: Scene) -> None:
    """A user shares something new, then checks it or takes it back down."""
    u = me(s)
    text = s.rng.choice(WORDS.post_texts)
    if s.rows("SELECT 1 FROM posts WHERE author_id = ? AND content = ?", u["user_id"], text):
        raise Skip("posted already")
    body = s.given(text, f'"{text}"', "text", "create_post", "content")
    uid = ask(s, u, WORDS.share, body=body)
    out = s.call("create_post", author_id=uid, content=body)
    remember_post(s, out)
    s.memory["mine"] = out["post_id"]
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    if s.rng.random() < 0.5:
        s.say(WORDS.share_then_delete)
        s.call("delete_post", user_id=uid, post_id=out["post_id"])
        s.memory.pop("post", None)
    else:
        s.say(WORDS.share_then_show)
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
    uid = ask(s, u, WORDS.remove_old_post, what=what)
    if latest and s.rng.random() < 0.5:
        ids = s.call("get_user", user_id=uid)["latest_post_ids"]
        if not ids or ids[0] != p["post_id"]:
            raise Skip("not the latest")
        pid = ids[0]
    else:
        pid = find_own_post(s, p, uid, latest)["post_id"]
    s.call("delete_post", user_id=uid, post_id=pid)
    s.memory.pop("post", None)
