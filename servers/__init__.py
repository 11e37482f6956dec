"""The server registry: the one place a server is registered. Adding a server is one module and one line."""

from __future__ import annotations

from hub.kit import Server
from servers import (
    banking,
    budget,
    calendar,
    crm,
    email,
    filesystem,
    food_delivery,
    iot_devices,
    issue_tracker,
    maps,
    marketplace,
    payments,
    retail_chain,
    shopping,
    social_media,
    team_chat,
    trading,
    travel_booking,
    vehicle,
    video_meeting,
)

REGISTRY: tuple[Server, ...] = (
    banking.server,
    trading.server,
    payments.server,
    calendar.server,
    email.server,
    filesystem.server,
    shopping.server,
    marketplace.server,
    retail_chain.server,
    travel_booking.server,
    maps.server,
    social_media.server,
    team_chat.server,
    iot_devices.server,
    vehicle.server,
    crm.server,
    issue_tracker.server,
    budget.server,
    food_delivery.server,
    video_meeting.server,
)
