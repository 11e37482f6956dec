"""Smart-home intents about the house as a whole: groups, sensor history, the overview, retiring a device, and
a support analyst's look across homes."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.iot_devices.intents import WORDS, at_home, device_ref, find_device, known, me, my_device, owner_asks, upper
from servers.iot_devices.tools import iot


@iot.intent(covers=("list_homes", "list_groups", "set_group_power"), follows=True)
def whole_floor(s: Scene) -> None:
    """A person switches a whole group of lights or plugs at once."""
    g = at_home(
        s,
        "SELECT g.* FROM device_groups g JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM homes x "
        "WHERE x.owner_name = h.owner_name) = 1 AND NOT EXISTS (SELECT 1 FROM group_members m JOIN devices d "
        "USING (device_id) WHERE m.group_id = g.group_id AND d.online = 0) AND EXISTS (SELECT 1 FROM "
        "group_members m WHERE m.group_id = g.group_id) AND (SELECT COUNT(*) FROM device_groups x WHERE "
        "x.home_id = g.home_id AND x.name = g.name) = 1",
        "g.home_id",
    )
    h = me(s, "h.home_id = ?", g["home_id"])
    on = s.rng.random() < 0.5
    what = {
        "All Lights": "every light in the house",
        "Downstairs Lights": "all the downstairs lights",
        "Upstairs Lights": "all the upstairs lights",
        "Plugs": "all the smart plugs",
    }.get(g["name"], g["name"])
    hid = owner_asks(s, h, WORDS.whole_floor, what=what, What=upper(what), st="on" if on else "off")
    found = [x for x in s.call("list_groups", home_id=hid)["groups"] if x["name"] == g["name"]]
    s.call("set_group_power", group_id=found[0]["group_id"], on=on)


@iot.intent(covers=("list_homes", "list_sensors", "get_sensor_readings"), follows=True)
def how_was_it(s: Scene) -> None:
    """A person asks how warm, humid or busy a room was over the last hours."""
    n = at_home(
        s,
        "SELECT n.*, r.name AS room, h.owner_name FROM sensors n JOIN rooms r USING (room_id) JOIN homes h ON "
        "h.home_id = n.home_id WHERE n.kind IN ('temperature', 'humidity', 'motion', 'door_contact') AND "
        "(SELECT COUNT(*) FROM sensors m WHERE m.room_id = n.room_id AND m.kind = n.kind) = 1 AND "
        "(SELECT COUNT(*) FROM homes x WHERE x.owner_name = h.owner_name) = 1",
        "n.home_id",
    )
    h = me(s, "h.home_id = ?", n["home_id"])
    q = {
        "temperature": "How warm has the {r} been",
        "humidity": "How humid has the {r} been",
        "motion": "Has anyone been moving around in the {r}",
        "door_contact": "Has the {r} door been opened",
    }[n["kind"]]
    since = s.rng.choice((None, "overnight", "since midnight"))
    hid = owner_asks(
        s,
        h,
        "{me}" + q + "{when}?",
        "{me}Quick check: " + q[:1].lower() + q[1:] + "{when}?",
        minimal=["{me}" + q + "?"],
        r=n["room"].lower(),
        when=" " + since if since else " lately",
    )
    by_room = known(s, n["room_id"]) and s.rng.random() < 0.3  # the room's id only when the agent holds it
    found = s.call("list_sensors", home_id=hid, kind=n["kind"], **({"room_id": n["room_id"]} if by_room else {}))
    hit = [x for x in found["sensors"] if x["sensor_id"] == n["sensor_id"]]
    if not hit:
        raise Skip("not on the page")
    args: dict[str, Any] = {"sensor_id": hit[0]["sensor_id"]}
    if since and not s.minimal:
        args["since"] = s.now.strftime("%Y-%m-%dT00:00")
    s.call("get_sensor_readings", **args)


@iot.intent(covers=("list_homes", "get_home", "list_devices", "remove_device", "remove_scene_device"), follows=True)
def house_check(s: Scene) -> None:
    """A person asks for an overview of their home, or retires a device (and keeps its scenes working)."""
    if s.rng.random() < 0.5:
        h = me(s)
        hid = owner_asks(s, h, WORDS.house_check)
        s.call("get_home", home_id=hid)
        return
    h, d = my_device(s, "d.type IN ('speaker', 'plug', 'camera', 'light')")
    what = device_ref(s, d)
    hid = owner_asks(s, h, WORDS.house_check_gave_away, what=what, What=upper(what))
    dev = find_device(s, hid, d)
    out = s.call("remove_device", device_id=dev["device_id"])
    fixable = [
        x
        for x in out["scenes_still_referring"]
        if s.value("SELECT COUNT(*) FROM scene_actions WHERE scene_id = ?", x) >= 2
    ]
    if fixable and s.room(1, 1):
        s.say(WORDS.house_check_then_scenes)
        s.call("remove_scene_device", scene_id=fixable[0], device_id=dev["device_id"])


@iot.intent(covers=("get_distinct_values", "list_devices"))
def support_desk(s: Scene) -> None:
    """A support analyst looks at the kinds of devices customers have, then at the offline ones of a kind."""
    s.say(WORDS.support_desk)
    kinds = s.call("get_distinct_values", field="device_type")["values"]
    kind = s.rng.choice(sorted(kinds))
    word = {
        "light": "lights",
        "thermostat": "thermostats",
        "lock": "door locks",
        "blind": "blinds",
        "plug": "plugs",
        "camera": "cameras",
        "speaker": "speakers",
    }[kind]
    if s.rng.random() < 0.5:
        s.say(WORDS.support_desk_offline, w=word)
        s.call("list_devices", type=kind, online=False)
        return
    s.say(WORDS.support_desk_low_battery, w=word)
    s.call("list_devices", type=kind, max_battery=20)
