"""Team chat: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

T = "team_chat"
BACKEND, LEADERSHIP, APOLLO = "CHN-0004", "CHN-0018", "CHN-0023"  # public, private, archived


def outsider(world: World, channel_id: str) -> str:
    """An active member who is not in the channel."""
    members = set(world.ok(T, "get_channel", channel_id=channel_id)["member_ids"])
    return next(
        u["user_id"]
        for u in world.ok(T, "search_users", status="active", limit=100)["users"]
        if u["user_id"] not in members
    )


def insider(world: World, channel_id: str) -> str:
    """An active member of the channel."""
    members = set(world.ok(T, "get_channel", channel_id=channel_id)["member_ids"])
    return next(
        u["user_id"]
        for u in world.ok(T, "search_users", status="active", limit=100)["users"]
        if u["user_id"] in members
    )


def test_search_users_and_distinct(world: World) -> None:
    found = world.ok(T, "search_users", department="Engineering", limit=5)["users"]
    assert found and all(u["department"] == "Engineering" for u in found)
    assert "invalid arguments" in world.err(T, "search_users", department="Legal")
    assert "Engineering" in world.ok(T, "get_distinct_values", field="department")["values"]
    assert "invalid arguments" in world.err(T, "get_distinct_values", field="salary")


def test_list_and_get_channel(world: World) -> None:
    public = world.ok(T, "list_channels", query="eng")["channels"]
    assert BACKEND in {c["channel_id"] for c in public} and all(not c["is_private"] for c in public)
    member = insider(world, LEADERSHIP)
    mine = {c["channel_id"] for c in world.ok(T, "list_channels", user_id=member)["channels"]}
    assert LEADERSHIP in mine
    assert APOLLO in {
        c["channel_id"] for c in world.ok(T, "list_channels", include_archived=True, limit=100)["channels"]
    }
    ch = world.ok(T, "get_channel", channel_id=LEADERSHIP)
    assert ch["is_private"] == 1 and member in ch["member_ids"]
    assert "No channel" in world.err(T, "get_channel", channel_id="CHN-9999")
    assert "No member" in world.err(T, "list_channels", user_id="USR-0000")


def test_search_messages_and_privacy(world: World) -> None:
    reader = insider(world, BACKEND)
    msgs = world.ok(T, "search_messages", user_id=reader, channel_id=BACKEND, limit=10)["messages"]
    assert msgs and all(m["thread_id"] is None and m["channel_id"] == BACKEND for m in msgs)
    assert "private" in world.err(T, "search_messages", user_id=outsider(world, LEADERSHIP), channel_id=LEADERSHIP)
    everywhere = world.ok(T, "search_messages", user_id=outsider(world, LEADERSHIP), query="the", limit=100)["messages"]
    assert all(m["channel_id"] != LEADERSHIP for m in everywhere)
    assert "No message" in world.err(T, "search_messages", user_id=reader, thread_id="MSG-99999")


def test_join_and_leave(world: World) -> None:
    user = outsider(world, BACKEND)
    assert "join it first" in world.err(T, "post_message", channel_id=BACKEND, author_id=user, text="hi")
    world.ok(T, "join_channel", channel_id=BACKEND, user_id=user)
    assert user in world.ok(T, "get_channel", channel_id=BACKEND)["member_ids"]
    assert "already a member" in world.err(T, "join_channel", channel_id=BACKEND, user_id=user)
    assert "private" in world.err(T, "join_channel", channel_id=LEADERSHIP, user_id=outsider(world, LEADERSHIP))
    assert "archived" in world.err(T, "join_channel", channel_id=APOLLO, user_id=user)
    world.ok(T, "leave_channel", channel_id=BACKEND, user_id=user)
    assert user not in world.ok(T, "get_channel", channel_id=BACKEND)["member_ids"]
    assert "not a member" in world.err(T, "leave_channel", channel_id=BACKEND, user_id=user)
    assert "cannot leave" in world.err(T, "leave_channel", channel_id="CHN-0001", user_id=user)


def test_invite_to_private_channel(world: World) -> None:
    inviter, guest = insider(world, LEADERSHIP), outsider(world, LEADERSHIP)
    assert "cannot invite" in world.err(
        T, "invite_to_channel", channel_id=LEADERSHIP, inviter_id=guest, user_id=inviter
    )
    world.ok(T, "invite_to_channel", channel_id=LEADERSHIP, inviter_id=inviter, user_id=guest)
    assert LEADERSHIP in {c["channel_id"] for c in world.ok(T, "list_channels", user_id=guest)["channels"]}
    assert world.ok(T, "search_messages", user_id=guest, channel_id=LEADERSHIP)["count"] > 0
    assert "already a member" in world.err(
        T, "invite_to_channel", channel_id=LEADERSHIP, inviter_id=inviter, user_id=guest
    )
    deactivated = world.ok(T, "search_users", status="deactivated", limit=100)["users"]
    target = next(
        u["user_id"]
        for u in deactivated
        if u["user_id"] not in world.ok(T, "get_channel", channel_id=LEADERSHIP)["member_ids"]
    )
    assert "deactivated" in world.err(T, "invite_to_channel", channel_id=LEADERSHIP, inviter_id=inviter, user_id=target)


def test_post_thread_and_mentions(world: World) -> None:
    author = insider(world, BACKEND)
    target = world.ok(T, "search_users", status="active", limit=1)["users"][0]
    msg = world.ok(T, "post_message", channel_id=BACKEND, author_id=author, text=f"@{target['handle']} deploy is done")
    assert msg["mentions"] == [target["user_id"]]
    assert (
        world.ok(T, "search_messages", user_id=author, channel_id=BACKEND, limit=1)["messages"][0]["message_id"]
        == msg["message_id"]
    )
    assert (
        world.ok(T, "search_messages", user_id=author, mentions_user_id=target["user_id"], limit=1)["messages"][0][
            "message_id"
        ]
        == msg["message_id"]
    )
    reply = world.ok(
        T, "post_message", channel_id=BACKEND, author_id=author, text="follow-up", thread_id=msg["message_id"]
    )
    thread = world.ok(T, "search_messages", user_id=author, thread_id=msg["message_id"])["messages"]
    assert [m["message_id"] for m in thread] == [reply["message_id"]]
    assert (
        world.ok(T, "search_messages", user_id=author, channel_id=BACKEND, limit=1)["messages"][0]["reply_count"] == 1
    )
    assert "reply to its thread root" in world.err(
        T, "post_message", channel_id=BACKEND, author_id=author, text="x", thread_id=reply["message_id"]
    )
    assert "No member with handle" in world.err(
        T, "post_message", channel_id=BACKEND, author_id=author, text="@nobody_here hi"
    )
    assert "empty" in world.err(T, "post_message", channel_id=BACKEND, author_id=author, text="   ")
    assert "archived" in world.err(T, "post_message", channel_id=APOLLO, author_id=author, text="hello?")


def test_private_mentions_need_membership(world: World) -> None:
    author = insider(world, LEADERSHIP)
    guest = outsider(world, LEADERSHIP)
    handle = next(
        u["handle"] for u in world.ok(T, "search_users", status="active", limit=100)["users"] if u["user_id"] == guest
    )
    assert "invite them" in world.err(
        T, "post_message", channel_id=LEADERSHIP, author_id=author, text=f"@{handle} thoughts?"
    )
    assert "private" in world.err(T, "post_message", channel_id=LEADERSHIP, author_id=guest, text="let me in")


def test_edit_message(world: World) -> None:
    author = insider(world, BACKEND)
    msg = world.ok(T, "post_message", channel_id=BACKEND, author_id=author, text="Deploy at 3pm")
    world.ok(T, "edit_message", message_id=msg["message_id"], user_id=author, text="Deploy at 4pm")
    got = world.ok(T, "search_messages", user_id=author, channel_id=BACKEND, limit=1)["messages"][0]
    assert got["text"] == "Deploy at 4pm" and got["edited_at"]
    assert "Only the author" in world.err(
        T, "edit_message", message_id=msg["message_id"], user_id=outsider(world, BACKEND), text="hijack"
    )
    assert "nothing to change" in world.err(
        T, "edit_message", message_id=msg["message_id"], user_id=author, text="Deploy at 4pm"
    )
    target = world.ok(T, "search_users", status="active", limit=1)["users"][0]
    edited = world.ok(
        T,
        "edit_message",
        message_id=msg["message_id"],
        user_id=author,
        text=f"Deploy at 5pm, thanks @{target['handle'].upper()}. Mail ops@example.com",
    )
    assert edited["mentions"] == [target["user_id"]]
    active = {u["user_id"] for u in world.ok(T, "search_users", status="active", limit=100)["users"]}
    archived = next(
        m
        for m in world.ok(T, "search_messages", user_id=author, channel_id=APOLLO, limit=50)["messages"]
        if m["author_id"] in active
    )
    assert "archived" in world.err(
        T, "edit_message", message_id=archived["message_id"], user_id=archived["author_id"], text="late edit"
    )


def test_reactions(world: World) -> None:
    member = insider(world, BACKEND)
    msg = world.ok(T, "search_messages", user_id=member, channel_id=BACKEND, limit=1)["messages"][0]
    before = msg["reactions"].get("rocket", 0)
    world.ok(T, "add_reaction", message_id=msg["message_id"], user_id=member, emoji="rocket")
    got = world.ok(T, "search_messages", user_id=member, channel_id=BACKEND, limit=1)["messages"][0]
    assert got["reactions"]["rocket"] == before + 1
    assert "already reacted" in world.err(
        T, "add_reaction", message_id=msg["message_id"], user_id=member, emoji="rocket"
    )
    assert "not a member" in world.err(
        T, "add_reaction", message_id=msg["message_id"], user_id=outsider(world, BACKEND), emoji="eyes"
    )
    world.ok(T, "add_reaction", message_id=msg["message_id"], user_id=member, emoji="rocket", remove=True)
    got = world.ok(T, "search_messages", user_id=member, channel_id=BACKEND, limit=1)["messages"][0]
    assert got["reactions"].get("rocket", 0) == before
    assert "invalid arguments" in world.err(
        T, "add_reaction", message_id=msg["message_id"], user_id=member, emoji="Not An Emoji"
    )
